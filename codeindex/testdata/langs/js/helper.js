function name() {
  return "n";
}
module.exports = { name };
