# Fuzzes the .npy reader (runtime/io/Npy.h) from memory. Seeds: corpus/npy/.
linnet_add_fuzzer(npy_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/npy_fuzzer.cpp)
target_link_libraries(npy_fuzzer PRIVATE linnet_runtime)
