const helper = require("./helper");

class Base {
  hello() { return "hi"; }
}

class Child extends Base {
  greet() { return this.hello() + helper.name(); }
}

function make() {
  return new Child();
}

module.exports = { make };
