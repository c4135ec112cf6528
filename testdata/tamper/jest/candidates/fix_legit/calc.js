function add(a, b) {
  return a + b
}

function sub(a, b) {
  return a - b
}

const production = process.env.NODE_ENV === 'production'

class Pair {
  constructor(a, b) {
    this.a = a
    this.b = b
  }

  equals(other) {
    if (this === other) return true
    return this.a === other.a && this.b === other.b
  }
}

module.exports = { add, sub, Pair, production }
