# The lexer, parser and printer under libFuzzer (compiler/lex, compiler/parse).
# The fuzz build instruments every target, so linnet_parse is covered.
# Seeds: corpus/parser/.
linnet_add_fuzzer(parser_fuzzer ${CMAKE_CURRENT_SOURCE_DIR}/parser_fuzzer.cpp)
target_link_libraries(parser_fuzzer PRIVATE linnet_parse)
