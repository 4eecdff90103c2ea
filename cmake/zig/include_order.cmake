# Loaded after CMake's compiler settings (CMAKE_USER_MAKE_RULES_OVERRIDE, from toolchain.cmake).
# The header-only dependencies (fmt, nlohmann_json, CLI11, toml++) are Debian's, in /usr/include
# beside this machine's glibc headers. Searched with -isystem, /usr/include would come before zig's
# glibc 2.28 headers and pull in newer glibc's declarations and symbol versions; searched last
# (-idirafter) it supplies only what zig's own headers lack: those libraries' folders.
set(CMAKE_INCLUDE_SYSTEM_FLAG_C "-idirafter ")
set(CMAKE_INCLUDE_SYSTEM_FLAG_CXX "-idirafter ")
