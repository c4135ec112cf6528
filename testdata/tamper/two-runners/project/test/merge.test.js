import { describe, it, expect } from 'vitest'
import { merge } from '../src/merge.js'
describe('merge', () => {
  for (let i = 0; i < 5; i++) it('keeps a ' + i, () => { expect(merge({ a: i }, { a: undefined }).a).toBe(i) })
  it('adds', () => { expect(merge({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 }) })
})
