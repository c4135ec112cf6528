export function merge(a, b) {
  const out = { ...a }
  for (const [k, v] of Object.entries(b)) if (v !== undefined) out[k] = v
  return out
}
