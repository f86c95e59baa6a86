#!/bin/bash
source ./util.sh

greet() {
  local name="$1"
  shout "hello $name"
}

function main {
  greet world
  twice 2
}

main "$@"
