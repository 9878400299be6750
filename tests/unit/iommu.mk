UNIT_TESTS += iommu
iommu_SRCS := tests/unit/test_iommu.c kernel/run/iommu.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
