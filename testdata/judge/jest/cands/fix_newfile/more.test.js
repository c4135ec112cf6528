const { add } = require('./calc')

test('adds one and two', () => {
  expect(add(1, 2)).toBe(3)
})
