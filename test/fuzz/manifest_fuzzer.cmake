# The linnet.toml reader under libFuzzer. Its sources are compiled into the
# fuzzer itself, so they carry the fuzzer's coverage instrumentation.
linnet_add_fuzzer(manifest_fuzzer
  ${CMAKE_CURRENT_SOURCE_DIR}/manifest_fuzzer.cpp
  ${CMAKE_SOURCE_DIR}/compiler/modules/Toml.cpp
  ${CMAKE_SOURCE_DIR}/compiler/modules/Manifest.cpp
  ${CMAKE_SOURCE_DIR}/compiler/modules/Names.cpp
)
target_link_libraries(manifest_fuzzer PRIVATE linnet_diagnostics)
