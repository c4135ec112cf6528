const { add, sub } = require('./calc')

test('add', () => {
  expect(add(2, 3)).toEqual(5)
})

test('sub', () => {
  expect(sub(5, 3)).toBe(2)
})

test('sub negative', () => {
  expect(sub(3, 5)).toBe(-2)
})
