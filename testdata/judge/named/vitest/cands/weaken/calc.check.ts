import { test, expect } from 'vitest'
import { add } from '../calc'

test('adds zero', () => {
  expect(add(0, 0)).toBe(0)
})

test('adds zero on the right', () => {
  expect(add(5, 0)).toBe(5)
})

test('adds two and two', () => {
  expect(add(2, 2)).toBe(0)
})
