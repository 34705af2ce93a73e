# Fuzzes the tokenizer.json reader, the pre-tokenizer regex engine and byte-level
# BPE (runtime/tokenizer/) from memory. Seeds: corpus/tokenizer_json/.
linnet_add_fuzzer(tokenizer_json_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/tokenizer_json_fuzzer.cpp)
target_link_libraries(tokenizer_json_fuzzer PRIVATE linnet_runtime)
