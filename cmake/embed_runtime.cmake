# Generates a C++ constant holding runtime/_graphmend_runtime.py byte for byte, for the code
# graphmend writes into patched packages (see include/graphmend/fix/runtime.h).
file(READ "${RUNTIME}" text)
if(text MATCHES "\\)gmrt\"")
  message(FATAL_ERROR "${RUNTIME} contains the raw-string delimiter )gmrt\"")
endif()
set(body "#include \"graphmend/fix/runtime.h\"\n\nnamespace graphmend::fix {\n\n")
string(APPEND body "std::string_view runtime_source() {\n  static constexpr char kSource[] = R\"gmrt(${text})gmrt\";\n")
string(APPEND body "  return {kSource, sizeof(kSource) - 1};\n}\n\n}  // namespace graphmend::fix\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
