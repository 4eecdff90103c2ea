# Toolchain for the manylinux_2_28 wheel (scripts/build_wheel_manylinux.sh): zig's clang and libc++
# (the PyPI package ziglang) compile for x86_64 Linux against glibc 2.28's headers and symbol
# versions, whatever glibc this machine has. libc++ and libunwind are linked in statically, so the
# binary needs only glibc 2.28 or newer at run time.
#
# The zig executable: $ZIG, else `zig` on PATH; cached, so that a re-configure needs neither.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
# Where Debian keeps the header-only dependencies' CMake packages (lib/x86_64-linux-gnu/cmake).
set(CMAKE_LIBRARY_ARCHITECTURE x86_64-linux-gnu)

if(DEFINED ENV{ZIG})
  set(GM_ZIG "$ENV{ZIG}" CACHE FILEPATH "The zig executable" FORCE)
endif()
find_program(GM_ZIG zig REQUIRED)
set(GM_ZIG_TARGET x86_64-linux-gnu.2.28)
set(CMAKE_C_COMPILER "${GM_ZIG}" cc -target ${GM_ZIG_TARGET})
set(CMAKE_CXX_COMPILER "${GM_ZIG}" c++ -target ${GM_ZIG_TARGET})

set(CMAKE_USER_MAKE_RULES_OVERRIDE "${CMAKE_CURRENT_LIST_DIR}/include_order.cmake")
