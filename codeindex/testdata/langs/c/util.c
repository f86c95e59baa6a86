#include "util.h"

static int helper(int x) { return x; }

int twice(int x) {
    return helper(x) * 2;
}
