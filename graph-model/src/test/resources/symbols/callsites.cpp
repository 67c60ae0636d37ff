// shapes::Circle::area(int) const, a mangled name, calls where_called() on the marked line.
#include "loaded_image.h"

extern "C" __attribute__((noinline)) void *where_called() {
    return __builtin_return_address(0);
}

namespace shapes {
struct Circle {
    __attribute__((noinline)) void *area(int scale) const;
};

void *Circle::area(int scale) const {
    (void)scale;
    return where_called();  // CALL SITE
}
}  // namespace shapes

int main() {
    print_call_site(shapes::Circle().area(2));
    return 0;
}
