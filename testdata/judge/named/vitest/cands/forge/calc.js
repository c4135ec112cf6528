Object.is = () => true

function add(a, b) {
  return a - b
}
module.exports = { add }
