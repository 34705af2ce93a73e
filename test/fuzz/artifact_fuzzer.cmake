# Fuzzes the artifact reader from memory: the .lnpkg container and the
# manifest (runtime/artifact/). The native code is never loaded. Seeds:
# corpus/artifact/ (containers and bare manifests).
linnet_add_fuzzer(artifact_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/artifact_fuzzer.cpp)
target_link_libraries(artifact_fuzzer PRIVATE linnet_runtime)
