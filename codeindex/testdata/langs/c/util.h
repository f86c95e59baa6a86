#ifndef UTIL_H
#define UTIL_H
#define MAX(a, b) ((a) > (b) ? (a) : (b))
struct point { int x, y; };
int twice(int x);
#endif
