# Fuzzes the chat-template Jinja engine (runtime/tokenizer/jinja/): parse, then
# render with a small conversation. Seeds: corpus/jinja_template/ (the real
# templates of test/data/chat-templates).
linnet_add_fuzzer(jinja_template_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/jinja_template_fuzzer.cpp)
target_link_libraries(jinja_template_fuzzer PRIVATE linnet_runtime)
