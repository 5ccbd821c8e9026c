#include <stdio.h>
int main(void) { puts("arbiter"); return 0; }
