import { test, expect } from 'vitest'
import { add } from './calc'

test('adds one and two', () => {
  expect(add(1, 2)).toBe(3)
})
