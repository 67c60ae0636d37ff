/* main calls where_called() on the marked line and prints the return address. */
#include "loaded_image.h"

__attribute__((noinline)) void *where_called(void) {
    return __builtin_return_address(0);
}

int main(void) {
    void *site = where_called(); /* CALL SITE */
    print_call_site(site);
    return 0;
}
