UNIT_TESTS += sha256
sha256_SRCS := tests/unit/test_sha256.c kernel/lib/sha256.c
