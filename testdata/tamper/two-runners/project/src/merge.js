export function merge(a, b) { return Object.assign({}, a, b) }
