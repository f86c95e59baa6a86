shout() { echo "${1^^}"; }
twice() { echo $(( $1 * 2 )); }
