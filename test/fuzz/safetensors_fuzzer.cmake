# Fuzzes the safetensors parser from memory (runtime/checkpoint/SafeTensors.h).
# The fuzz build instruments every target (top-level CMakeLists.txt), so the
# parser inside linnet_runtime is covered. Seeds: corpus/safetensors/.
linnet_add_fuzzer(safetensors_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/safetensors_fuzzer.cpp)
target_link_libraries(safetensors_fuzzer PRIVATE linnet_runtime)
