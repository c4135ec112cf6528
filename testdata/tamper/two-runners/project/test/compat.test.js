import { test as vt, expect } from 'vitest'
import test from 'node:test'
import assert from 'node:assert'
import { merge } from '../src/merge.js'
test('node merge adds', () => { assert.deepStrictEqual(merge({ a: 1 }, { b: 2 }), { a: 1, b: 2 }) })
test('node merge two', () => { assert.ok(true) })
vt('vitest in compat', () => { expect(1).toBe(1) })
