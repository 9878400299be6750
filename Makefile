# QuietBench - one non-recursive Makefile. Objects go to build/.
#
#   make            build build/quietbench.efi
#   make run        boot it in QEMU (SMP=, MEM=, ARGS= may be overridden)
#   make test       host unit tests (ASan+UBSan) and QEMU boot tests
#   make unit       host unit tests only
#   make boottest   QEMU boot tests only

MAKEFLAGS += -rR
.SUFFIXES:
.DELETE_ON_ERROR:

# ---- user-overridable -------------------------------------------------------
# CC and LD have make's built-in defaults, which -R removes: set them unless
# the user did.
define default_var
ifeq ($$(origin $(1)),default)
override $(1) := $(2)
endif
ifeq ($$(origin $(1)),undefined)
override $(1) := $(2)
endif
endef
$(eval $(call default_var,CC,gcc))
$(eval $(call default_var,LD,ld))
HOSTCC  ?= gcc
OBJCOPY ?= objcopy
SMP     ?= 4
MEM     ?= 1024
ARGS    ?=
BUILD   ?= build

# ---- host unit tests ----------------------------------------------------------
# Each tests/unit/NAME.mk adds NAME to UNIT_TESTS and sets NAME_SRCS: the test
# file plus the real kernel/boot/workload sources it exercises.
UNIT_TESTS :=
include $(sort $(wildcard tests/unit/*.mk))

override HOST_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wshadow \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DQB_HOST_TEST -Ikernel -Iboot -Iworkloads -Itests/unit

UNIT_BINS := $(patsubst %,$(BUILD)/host/%,$(UNIT_TESTS))

define unit_rule
$(BUILD)/host/$(1): $$($(1)_SRCS) $$(wildcard kernel/*.h boot/*.h workloads/*.h tests/unit/*.h) | $(BUILD)/host
	$$(HOSTCC) $$(HOST_CFLAGS) -o $$@ $$($(1)_SRCS) -lm
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

$(BUILD)/host:
	mkdir -p $@

.PHONY: unit
unit: $(UNIT_BINS)
	@set -e; fail=0; for t in $(UNIT_BINS); do \
		echo "== $$t"; \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $$t || fail=1; \
	done; exit $$fail

# ---- kernel ---------------------------------------------------------------
BUILD_ID := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

override KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie -mcmodel=kernel \
	-mno-red-zone -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-omit-frame-pointer -Wall -Wextra -Werror -Wshadow \
	-Ikernel -Iworkloads -MMD -MP -DQB_BUILD_ID='"$(BUILD_ID)"'
# Workloads are built for speed; kernel/ for clarity.
override WLCFLAGS := $(KCFLAGS) -O3

KERNEL_SRCS := $(sort $(wildcard kernel/*.c))
KERNEL_ASM  := $(sort $(wildcard kernel/*.S))
WL_SRCS     := $(sort $(wildcard workloads/*.c))
KERNEL_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(KERNEL_SRCS)) \
	$(patsubst %.S,$(BUILD)/%.o,$(KERNEL_ASM)) \
	$(patsubst %.c,$(BUILD)/%.o,$(WL_SRCS))

$(BUILD)/kernel/%.o: kernel/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(KCFLAGS) -c $< -o $@
$(BUILD)/kernel/%.o: kernel/%.S Makefile
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(KCFLAGS) -D__ASSEMBLY__ -c $< -o $@
$(BUILD)/workloads/%.o: workloads/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(WLCFLAGS) -c $< -o $@

# The build id changes with every commit; rebuild the file that records it.
$(BUILD)/kernel/version.o: .FORCE

$(BUILD)/kernel.elf: $(KERNEL_OBJS) linker.ld
	$(LD) -nostdlib -static -z max-page-size=4096 -z noexecstack -T linker.ld -o $@ $(KERNEL_OBJS)
$(BUILD)/kernel.bin: $(BUILD)/kernel.elf
	$(OBJCOPY) -O binary $< $@

# ---- UEFI application (gnu-efi) --------------------------------------------
EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
override ECFLAGS := -std=gnu11 -O2 -fpic -ffreestanding -fshort-wchar -mno-red-zone \
	-fno-stack-protector -fno-strict-aliasing -DGNU_EFI_USE_MS_ABI -Wall -Wextra -Werror \
	-Iboot -Ikernel -I$(EFI_INC) -I$(EFI_INC)/x86_64 -MMD -MP
BOOT_SRCS := boot/efi_main.c boot/efi_mmap.c boot/mmap.c boot/handoff_pt.c
BOOT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(BOOT_SRCS)) $(BUILD)/boot/efi_handoff.o $(BUILD)/boot/kernel_blob.o

$(BUILD)/boot/%.o: boot/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/efi_handoff.o: boot/efi_handoff.S
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/kernel_blob.o: boot/kernel_blob.S $(BUILD)/kernel.bin
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -DKERNEL_BIN='"$(BUILD)/kernel.bin"' -c $< -o $@

$(BUILD)/quietbench.so: $(BOOT_OBJS)
	$(LD) -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_LIB)/elf_x86_64_efi.lds \
		$(EFI_LIB)/crt0-efi-x86_64.o $(BOOT_OBJS) -L$(EFI_LIB) -lefi -lgnuefi -o $@
$(BUILD)/quietbench.efi: $(BUILD)/quietbench.so
	$(OBJCOPY) -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	@size=$$(stat -c %s $@); if [ $$size -ge 1048576 ]; then \
		echo "quietbench.efi is $$size bytes, over the 1 MiB budget" >&2; rm -f $@; exit 1; fi

.DEFAULT_GOAL := all
.PHONY: all clean .FORCE
all: $(BUILD)/quietbench.efi
clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- dependencies ---------------------------------------------------------
# tools/deps installs missing Debian packages (as root) or says how to.
$(BUILD)/.deps-ok: tools/deps
	@mkdir -p $(@D)
	tools/deps
	@touch $@
$(KERNEL_OBJS) $(BOOT_OBJS) $(UNIT_BINS): | $(BUILD)/.deps-ok
.PHONY: deps
deps:
	tools/deps

# ---- running and testing --------------------------------------------------
.PHONY: run test boottest asmtest toolstest
run: $(BUILD)/quietbench.efi
	tools/qemu-run --efi $< --smp $(SMP) --mem $(MEM) --default-profile quick --log $(BUILD)/run.log -- $(ARGS)

boottest: $(BUILD)/quietbench.efi
	python3 tests/boot/run_boot_tests.py --efi $<

# The counter workload's loops must really load, add and store (or LOCK XADD).
asmtest: $(BUILD)/workloads/counter_loops.o
	python3 tests/asm/check_counter_loops.py $<

# tools/qb's tests need Debian's python3 (its matplotlib and pytest), which
# may not be the first python3 on PATH.
HOST_PYTHON ?= /usr/bin/python3
toolstest: | $(BUILD)/.deps-ok
	$(HOST_PYTHON) -m pytest -q tests/tools

test: unit asmtest toolstest boottest
