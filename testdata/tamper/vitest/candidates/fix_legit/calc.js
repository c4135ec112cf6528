export function add(a, b) {
  return a + b
}

export function sub(a, b) {
  return a - b
}

const production = process.env.NODE_ENV === 'production'

export class Pair {
  constructor(a, b) {
    this.a = a
    this.b = b
  }

  equals(other) {
    if (this === other) return true
    return this.a === other.a && this.b === other.b
  }
}
export { production }
