#include <stdio.h>
#include "util.h"

static int helper(int x) { return x + 1; }

int main(void) {
    printf("%d\n", twice(helper(2)));
    return 0;
}
