# QuietBench - one non-recursive Makefile. Objects go to build/.
#
#   make            build build/quietbench.efi
#   make run        boot it in QEMU (SMP=, MEM=, ARGS= may be overridden)
#   make test       host unit tests (ASan+UBSan) and QEMU boot tests
#   make unit       host unit tests only
#   make boottest   QEMU boot tests only

# kernel/ is split by subsystem (README "Folders"); every folder is on the include path.
KERNEL_DIRS := $(sort $(dir $(wildcard kernel/*/*.h kernel/*/*.c)))
KINC := $(addprefix -I,$(patsubst %/,%,$(KERNEL_DIRS)))

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
# The key that signs the stick (make image): made on first use in SIGNING_DIR.
SIGNING_DIR  ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/quietbench/keys
SIGNING_KEY  ?= $(SIGNING_DIR)/quietbench-signing.key
SIGNING_CERT ?= $(basename $(SIGNING_KEY)).crt
# The tests' image, signed with a throwaway key under build/ (never one in a home folder).
TEST_SIGNING_KEY := $(BUILD)/test-key/quietbench-test.key
TEST_SIGNING_CERT := $(BUILD)/test-key/quietbench-test.crt
TEST_IMG := $(BUILD)/test/quietbench.img

# ---- host unit tests ----------------------------------------------------------
# Each tests/unit/NAME.mk adds NAME to UNIT_TESTS and sets NAME_SRCS: the test
# file plus the real kernel/boot/workload sources it exercises (NAME_CFLAGS:
# more flags, such as -Itools/twin for the Linux twin's units).
UNIT_TESTS :=
include $(sort $(wildcard tests/unit/*.mk))

override HOST_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wshadow \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DQB_HOST_TEST $(KINC) -Iboot -Iworkloads -Itests/unit

UNIT_BINS := $(patsubst %,$(BUILD)/host/%,$(UNIT_TESTS))

define unit_rule
$(BUILD)/host/$(1): $$($(1)_SRCS) $$(wildcard kernel/*/*.h boot/*.h workloads/*.h tests/unit/*.h) | $(BUILD)/host
	$$(HOSTCC) $$(HOST_CFLAGS) $$($(1)_CFLAGS) -o $$@ $$($(1)_SRCS) -lm
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
# The objects that print the build id are rebuilt when it changes (a commit,
# or a tree that became clean): the stamp is rewritten only then.
BUILD_ID_STAMP := $(BUILD)/gen/build_id
$(shell mkdir -p $(BUILD)/gen; [ "$$(cat $(BUILD_ID_STAMP) 2>/dev/null)" = "$(BUILD_ID)" ] || echo "$(BUILD_ID)" > $(BUILD_ID_STAMP))
BUILD_ID_KERNEL := kernel/start/main.c kernel/start/machine.c kernel/console/fbcon.c
BUILD_ID_TWIN := tools/twin/hostmachine.c tools/twin/main.c

override KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie -mcmodel=kernel \
	-mno-red-zone -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-omit-frame-pointer -Wall -Wextra -Werror -Wshadow \
	$(KINC) -Iworkloads -MMD -MP -DQB_BUILD_ID='"$(BUILD_ID)"'
# Workloads are built for speed; kernel/ for clarity.
override WLCFLAGS := $(KCFLAGS) -O3

KERNEL_SRCS := $(sort $(wildcard kernel/*/*.c))
KERNEL_ASM  := $(sort $(wildcard kernel/*/*.S))
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
	-Iboot $(KINC) -I$(EFI_INC) -I$(EFI_INC)/x86_64 -MMD -MP
BOOT_SRCS := boot/efi_main.c boot/efi_mmap.c boot/efi_pci.c boot/efi_results.c boot/efi_resfile.c boot/efi_series.c boot/fat.c \
	boot/mmap.c boot/handoff_pt.c boot/efi_smbios.c
# Pure kernel units the loader shares, built again with the loader's flags.
BOOT_KERNEL_SRCS := kernel/lib/resfile.c kernel/lib/resseries.c kernel/mm/pgtable.c kernel/lib/smbios_ep.c
BOOT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(BOOT_SRCS)) $(patsubst kernel/%.c,$(BUILD)/boot/kernel/%.o,$(BOOT_KERNEL_SRCS)) \
	$(BUILD)/boot/efi_handoff.o $(BUILD)/boot/kernel_blob.o

$(BUILD)/boot/%.o: boot/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/kernel/%.o: kernel/%.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $< (loader)"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/efi_handoff.o: boot/efi_handoff.S
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/kernel_blob.o: boot/kernel_blob.S $(BUILD)/kernel.bin
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -DKERNEL_BIN='"$(BUILD)/kernel.bin"' -c $< -o $@

$(BUILD)/quietbench.so: $(BOOT_OBJS)
	$(LD) -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_LIB)/elf_x86_64_efi.lds \
		$(EFI_LIB)/crt0-efi-x86_64.o $(BOOT_OBJS) -L$(EFI_LIB) -lefi -lgnuefi -o $@
# No symbol table; NX_COMPAT set (strict firmware: tools/qbsecureboot.py checks the sections are W^X on
# 4 KiB pages first), padded and checksummed as sbsign leaves it once its signature is removed.
$(BUILD)/quietbench.efi: $(BUILD)/quietbench.so tools/qbsecureboot.py
	$(OBJCOPY) --strip-all -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	python3 tools/qbsecureboot.py nx-compat $@
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
	tools/qemu-run --efi $< --smp $(SMP) --mem $(MEM) --default-profile quick --log-dir $(BUILD) --keep 20 -- $(ARGS)

boottest: $(BUILD)/quietbench.efi
	python3 tests/boot/run_boot_tests.py --efi $<

# The plan: plan= stops after it, budget= is kept, run_timeout_ms= gives overruns.
.PHONY: plantest
plantest: $(BUILD)/quietbench.efi
	python3 tests/boot/plan_tests.py --efi $<

# CPUs left out of the run are halted in our park loop; console= moves the console.
.PHONY: parktest
parktest: $(BUILD)/quietbench.efi
	python3 tests/boot/park_tests.py --efi $<

# The counter workload's loops must really load, add and store (or LOCK XADD);
# locality's shared-slot loops must be the gist's (a store of the running sum
# to the slot per element, never a reload). Checked in both builds: the
# kernel's and the twin's, after the check proves it rejects the bad forms.
ASM_OBJS := counter_loops.o locality_loops.o
asmtest: $(addprefix $(BUILD)/workloads/,$(ASM_OBJS)) $(addprefix $(BUILD)/twin/workloads/,$(ASM_OBJS))
	python3 tests/asm/check_counter_loops.py --self-test
	python3 tests/asm/check_counter_loops.py $(addprefix $(BUILD)/workloads/,$(ASM_OBJS))
	python3 tests/asm/check_counter_loops.py $(addprefix $(BUILD)/twin/workloads/,$(ASM_OBJS))

# No include and no call goes up a layer (each folder's layer is in its main
# file's header; tests/layers/check_layers.py reads them, the includes per
# file and the calls from the kernel's and the twin's objects; the twin and
# the unit tests take the layers of what they stand in for). The start-up
# takes the firmware's USB and IOMMUs before the TSC is calibrated, on every
# boot path (tests/layers/check_start_order.py).
.PHONY: layercheck
layercheck: $(BUILD)/kernel.elf $(BUILD)/quietbench-host
	python3 tests/layers/check_layers.py --self-test
	python3 tests/layers/check_layers.py --objs $(BUILD)/kernel $(BUILD)/workloads --twin-objs $(BUILD)/twin
	python3 tests/layers/check_start_order.py --self-test
	python3 tests/layers/check_start_order.py

# tools/qb's tests need Debian's python3 (its matplotlib and pytest), which
# may not be the first python3 on PATH.
HOST_PYTHON ?= /usr/bin/python3
toolstest: | $(BUILD)/.deps-ok
	$(HOST_PYTHON) -m pytest -q tests/tools

# Bochs raises #GP on the MSRs it does not model, as real CPUs and hypervisors do.
.PHONY: bochstest
bochstest: $(TEST_IMG)
	python3 tests/boot/bochs_tests.py --image $<

# QEMU 10 from bookworm-backports, unpacked beside the system QEMU (tools/qemu10).
QEMU10 := $(BUILD)/qemu10/usr/bin/qemu-system-x86_64
$(BUILD)/qemu10/.ok:
	tools/qemu10 $(BUILD)/qemu10

# x2APIC under QEMU 10: a CPU at APIC ID 256, and a fault with a CPU left out.
.PHONY: x2apictest test-slow
x2apictest: $(BUILD)/quietbench.efi $(BUILD)/qemu10/.ok
	python3 tests/boot/x2apic_tests.py --efi $(BUILD)/quietbench.efi --qemu $(QEMU10)

# The slow tier: a 2-socket Turin Dense machine under QEMU 10, 768 CPUs
# (minutes each); the slow cells of the boot matrix, among them the big-memory
# servers (3 TiB in two nodes, 6 TiB in four: under a minute each); plantest's
# loaded-150s; and Secure Boot's slow cases (sbtest-slow). .ci/run runs it when
# time allows.
test-slow: $(BUILD)/quietbench.efi $(TEST_IMG) $(BUILD)/qemu10/.ok sbtest-slow
	python3 tests/boot/big_smp_tests.py --efi $(BUILD)/quietbench.efi --image $(TEST_IMG) --qemu $(QEMU10)
	python3 tests/boot/matrix.py --efi $(BUILD)/quietbench.efi --image $(TEST_IMG) --logdir $(BUILD)/matrix --only-slow
	python3 tests/boot/plan_tests.py --slow --efi $(BUILD)/quietbench.efi

# qemu-run ends with the done record, says when the firmware died, keeps the log on Ctrl-C.
.PHONY: qemuruntest
qemuruntest: $(BUILD)/quietbench.efi $(TEST_IMG)
	python3 tests/boot/qemu_run_tests.py --efi $< --image $(TEST_IMG)

# Every link in the README and docs/ resolves, every make target and tools/ command they show parses.
.PHONY: docscheck
docscheck:
	python3 tests/docs/check_docs.py

TEST_TARGETS += unit layercheck docscheck asmtest toolstest boottest parktest plantest qemuruntest x2apictest bochstest

# ---- fbcon (begin)
# The screen console's font: tools/mkfont turns a PSF console font from
# Debian's console-setup-linux (tools/deps installs it) into C at build time.
# Override FBCON_FONT with any PSF1/PSF2 font up to 32x32, e.g.
# /usr/share/consolefonts/Lat15-TerminusBold20x10.psf.gz (then make clean).
FBCON_FONT ?= /usr/share/consolefonts/Lat15-TerminusBold16.psf.gz
FBCON_FONT_C := $(BUILD)/gen/fbcon_font.c
FBCON_FONT_O := $(BUILD)/gen/fbcon_font.o

$(FBCON_FONT_C): tools/mkfont Makefile | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@echo "  MKFONT $(FBCON_FONT)"; python3 tools/mkfont --self-test && python3 tools/mkfont $(FBCON_FONT) $@
$(FBCON_FONT_O): $(FBCON_FONT_C) Makefile
	@echo "  CC $<"; $(CC) $(KCFLAGS) -c $< -o $@

# kernel.elf's prerequisites were expanded above: name the font there too.
KERNEL_OBJS += $(FBCON_FONT_O)
$(BUILD)/kernel.elf: $(FBCON_FONT_O)

# The screenshot test: boot, screendump the summary screen, read it back.
.PHONY: screenshot
screenshot: $(BUILD)/quietbench.efi $(TEST_IMG) $(FBCON_FONT_C)
	python3 tests/boot/screenshot.py --efi $< --image $(TEST_IMG)
TEST_TARGETS += screenshot
# ---- fbcon (end)

# ---- image (begin) ----------------------------------------------------------
# The multiboot2 kernel (boot/mb2*: GRUB on legacy BIOS), the USB image and
# the flasher.
#
#   make image           build/quietbench.img: raw disk for dd, boots on UEFI (Secure Boot too) and BIOS
#   make image-unsigned  build/quietbench-unsigned.img: the same stick, unsigned, the same bytes from any clone
#   make usb DEV=/dev/sdX   write it to a USB stick (tools/qb-flash; YES=1 skips the question)
#   make imagetest       boot the image in QEMU under OVMF (USB stick) and SeaBIOS (disk)
#   make seriestest      series=N: boots in a row from the stick, a power cut in one, legacy BIOS's refusal
#   make sbtest          Secure Boot: the build's key as a MOK, and not enrolled (test-slow: the rest)
#   make reprotest       two builds in two folders make one image-unsigned, byte for byte
#   make flashtest       host tests of tools/qb-flash
#
# Secure Boot (docs/real-machines.md): the stick boots through Debian's
# Microsoft-signed shim (tools/sbfiles), and its GRUB and quietbench.efi are
# signed with the user's own key, made on first use (tools/signing-key) in
# SIGNING_DIR; SIGNING_KEY= and SIGNING_CERT= take a key the user already has.
# The tests sign their image (build/test/quietbench.img) with a throwaway key
# under build/, so that make test never makes a key in a home folder.

# The build folder's path stays out of the debug info (-ffile-prefix-map): the image is the same from any folder.
override MB2CFLAGS := -std=gnu11 -O2 -g -m64 -ffreestanding -fno-pic -fno-pie -mcmodel=small \
	-mno-red-zone -fno-stack-protector -fno-asynchronous-unwind-tables -fno-omit-frame-pointer \
	-ffile-prefix-map=$(CURDIR)=. -Wall -Wextra -Werror -Wshadow -Iboot $(KINC) -MMD -MP
MB2_SRCS := boot/mb2_main.c boot/mb2.c boot/mb2_mem.c boot/mmap.c boot/handoff_pt.c kernel/mm/pgtable.c kernel/lib/lib.c \
	boot/mb2_smbios.c kernel/lib/smbios_ep.c
MB2_OBJS := $(patsubst %.c,$(BUILD)/mb2/%.o,$(MB2_SRCS)) \
	$(BUILD)/mb2/boot/mb2_header.o $(BUILD)/mb2/boot/mb2_entry.o $(BUILD)/mb2/boot/mb2_blob.o

$(BUILD)/mb2/%.o: %.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $< (mb2)"; 	$(CC) $(MB2CFLAGS) -c $< -o $@
$(BUILD)/mb2/boot/mb2_header.o $(BUILD)/mb2/boot/mb2_entry.o: $(BUILD)/mb2/%.o: %.S Makefile
	@mkdir -p $(@D)
	@echo "  CC $< (mb2)"; 	$(CC) $(MB2CFLAGS) -D__ASSEMBLY__ -c $< -o $@
# The room behind the kernel is its header's mem_size minus the file's size.
$(BUILD)/mb2/boot/mb2_blob.o: boot/mb2_blob.S $(BUILD)/kernel.bin Makefile
	@mkdir -p $(@D)
	@mem=$$(od -An -t u8 -j 32 -N 8 $(BUILD)/kernel.bin | tr -d ' '); \
	file=$$(stat -c %s $(BUILD)/kernel.bin); \
	echo "  CC $< (mb2, kernel $$file bytes + $$((mem - file)) bss)"; \
	$(CC) $(MB2CFLAGS) -D__ASSEMBLY__ -DKERNEL_BIN='"$(BUILD)/kernel.bin"' \
		-DKERNEL_BSS_BYTES=$$((mem - file)) -c $< -o $@
$(MB2_OBJS): | $(BUILD)/.deps-ok

# The first segment is RWX (header, code, data): GRUB loads it with paging off.
$(BUILD)/quietbench-mb2.elf: $(MB2_OBJS) boot/mb2.ld
	$(LD) -nostdlib -static -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments \
		-T boot/mb2.ld -o $@ $(MB2_OBJS)
	@if command -v grub-file >/dev/null && ! grub-file --is-x86-multiboot2 $@; then \
		echo "$@: GRUB does not see a multiboot2 header" >&2; rm -f $@; exit 1; fi
all: $(BUILD)/quietbench-mb2.elf

# Every FAT time on the stick is the commit's (tools/mkimage, mtools).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
ifneq ($(SOURCE_DATE_EPOCH),)
export SOURCE_DATE_EPOCH
endif
# The image is made again when the commit's time changes (a docs-only commit
# too), so that it matches a clone's (reprotest).
EPOCH_STAMP := $(BUILD)/gen/epoch
$(shell mkdir -p $(BUILD)/gen; [ "$$(cat $(EPOCH_STAMP) 2>/dev/null)" = "$(SOURCE_DATE_EPOCH)" ] || echo "$(SOURCE_DATE_EPOCH)" > $(EPOCH_STAMP))
# The image is made again when the key named changes (the stamp is rewritten only then).
SIGNING_STAMP := $(BUILD)/gen/signing
$(shell mkdir -p $(BUILD)/gen; [ "$$(cat $(SIGNING_STAMP) 2>/dev/null)" = "$(SIGNING_KEY) $(SIGNING_CERT)" ] || echo "$(SIGNING_KEY) $(SIGNING_CERT)" > $(SIGNING_STAMP))

# Debian's shim, MokManager and signed GRUB (for its .sbat), unpacked, never installed.
SB_FILES := $(BUILD)/secureboot
$(SB_FILES)/.ok: tools/sbfiles tools/debfetch.py | $(BUILD)/.deps-ok
	tools/sbfiles $(SB_FILES) >/dev/null

IMAGE_DEPS := $(BUILD)/quietbench.efi $(BUILD)/quietbench-mb2.elf tools/mkimage tools/qbsecureboot.py \
	boot/grub/grub.cfg boot/grub/quietbench.cfg workloads/registry.c $(WL_SRCS) $(SB_FILES)/.ok $(EPOCH_STAMP)
MKIMAGE := tools/mkimage --efi $(BUILD)/quietbench.efi --mb2 $(BUILD)/quietbench-mb2.elf --secureboot $(SB_FILES)
# A key is made only where QuietBench chose the place; one the user named must exist.
SIGNING_CREATE := $(if $(filter file,$(origin SIGNING_KEY)),--create)
$(BUILD)/quietbench.img: $(IMAGE_DEPS) $(SIGNING_STAMP) $(wildcard $(SIGNING_CERT)) | $(BUILD)/.deps-ok
	@tools/signing-key $(SIGNING_CREATE) $(SIGNING_KEY) $(SIGNING_CERT) >/dev/null
	$(MKIMAGE) --key $(SIGNING_KEY) --cert $(SIGNING_CERT) -o $@
$(BUILD)/quietbench-unsigned.img: $(IMAGE_DEPS) | $(BUILD)/.deps-ok
	$(MKIMAGE) -o $@
$(TEST_SIGNING_CERT):
	tools/signing-key --create $(TEST_SIGNING_KEY) $@ >/dev/null
$(TEST_IMG): $(IMAGE_DEPS) $(TEST_SIGNING_CERT) | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(MKIMAGE) --key $(TEST_SIGNING_KEY) --cert $(TEST_SIGNING_CERT) -o $@

# The strict-NX control (make test-slow): a UEFI application that runs code from its own .data section.
$(BUILD)/test/nxprobe.o: tests/boot/nxprobe.c Makefile | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@echo "  CC $<"; 	$(CC) $(ECFLAGS) -c $< -o $@
$(BUILD)/test/nxprobe.so: $(BUILD)/test/nxprobe.o
	$(LD) -nostdlib -znocombreloc -shared -Bsymbolic -T $(EFI_LIB)/elf_x86_64_efi.lds \
		$(EFI_LIB)/crt0-efi-x86_64.o $< -L$(EFI_LIB) -lefi -lgnuefi -o $@
$(BUILD)/test/nxprobe.efi: $(BUILD)/test/nxprobe.so tools/qbsecureboot.py
	$(OBJCOPY) --strip-all -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	python3 tools/qbsecureboot.py nx-compat $@

# Network boot (issue 18): a TFTP/HTTP root with GRUB for UEFI and BIOS.
.PHONY: netboot netboottest
netboot: $(BUILD)/quietbench.efi $(BUILD)/quietbench-mb2.elf tools/mknetboot boot/grub/grub.cfg | $(BUILD)/.deps-ok
	tools/mknetboot --efi $(BUILD)/quietbench.efi --mb2 $(BUILD)/quietbench-mb2.elf -o $(BUILD)/netboot
netboottest: netboot
	python3 tests/boot/netboot_tests.py --root $(BUILD)/netboot

# LAVA (issue 18): tools/lava/qemu-job.yaml run for real by Debian's lava-run,
# its test cases checked against the result records.
.PHONY: lava-check
lava-check: $(TEST_IMG)
	tools/lava-check --image $< --build $(BUILD)

.PHONY: image image-unsigned usb imagetest flashtest sbtest reprotest sbscreens
image: $(BUILD)/quietbench.img
	@tools/signing-key $(SIGNING_KEY) $(SIGNING_CERT)
	@echo "image: $< signed with $(SIGNING_KEY); its certificate is on the stick as ENROLL_THIS_KEY_IN_MOKMANAGER.cer"
	@sha256sum $<
image-unsigned: $(BUILD)/quietbench-unsigned.img
	@sha256sum $<

usb: $(BUILD)/quietbench.img
	@if [ -z "$(DEV)" ]; then echo "usage: make usb DEV=/dev/sdX [YES=1]" >&2; exit 2; fi
	tools/qb-flash $< $(DEV) $(if $(YES),--yes)

imagetest: $(TEST_IMG)
	python3 tests/boot/image_tests.py --image $<

# A series of boots from the stick (series=N): three boots unattended through tools/qemu-run, a power cut
# in boot 2 and the series continued, and the refusal on legacy BIOS (tests/boot/series_tests.py).
.PHONY: seriestest
seriestest: $(TEST_IMG)
	python3 tests/boot/series_tests.py --image $< --logdir $(BUILD)/seriestest
TEST_TARGETS += seriestest

# The end screen with a USB keyboard: keys through QEMU's monitor, the screen read back.
.PHONY: pagertest
pagertest: $(TEST_IMG) $(FBCON_FONT_C)
	python3 tests/boot/pager_test.py --image $(TEST_IMG)

# The stick behind an EHCI or a UHCI alone: named by class, the controller taken
# from the firmware, no hang, and not a byte of the stick written.
.PHONY: usbhctest
usbhctest: $(TEST_IMG)
	python3 tests/boot/usbhc_tests.py --image $<
TEST_TARGETS += usbhctest

# Secure Boot (tests/boot/secureboot_tests.py): signatures, the stick stripped of them, a boot with the
# key as a MOK and one not enrolled; the slow tier: MokManager driven over serial, db, the refusals,
# Debian 13's strict-NX OVMF (tools/ovmf13) and its control (tests/boot/nxprobe.c).
OVMF13 := $(BUILD)/ovmf13/.ok
$(OVMF13): tools/ovmf13 tools/debfetch.py
	tools/ovmf13 $(BUILD)/ovmf13 >/dev/null
SBTEST_ARGS = --image $(TEST_IMG) --unsigned $(BUILD)/quietbench-unsigned.img --sb-files $(SB_FILES) \
	--key $(TEST_SIGNING_KEY) --cert $(TEST_SIGNING_CERT) --logdir $(BUILD)/sbtest
sbtest: $(TEST_IMG) $(BUILD)/quietbench-unsigned.img
	python3 tests/boot/secureboot_tests.py $(SBTEST_ARGS)
.PHONY: sbtest-slow
sbtest-slow: $(TEST_IMG) $(BUILD)/quietbench-unsigned.img $(BUILD)/test/nxprobe.efi $(OVMF13)
	python3 tests/boot/secureboot_tests.py --slow $(SBTEST_ARGS) --nxprobe $(BUILD)/test/nxprobe.efi
# docs/screens/secureboot-*.png: each screen of the first boot, MokManager driven over serial.
sbscreens: $(TEST_IMG)
	python3 tests/boot/mokmanager.py --image $(TEST_IMG) --screens docs/screens
# make image-unsigned in two clones of HEAD, in two folders: the same bytes (this tree is one when it is
# clean at HEAD, as CI's is).
reprotest: $(BUILD)/quietbench-unsigned.img $(SB_FILES)/.ok
	python3 tests/boot/repro_test.py --work $(BUILD)/repro --sb-files $(SB_FILES) --tree-build $(BUILD)
TEST_TARGETS += sbtest reprotest

# The flasher's refusals and writes, against a fixture sysfs tree (no root needed).
flashtest:
	python3 -m unittest tests/tools/test_flash.py
# ---- image (end) ------------------------------------------------------------

# ---- host twin (begin) ------------------------------------------------------
# The Linux twin (issue 6): the same workloads/ sources built as a Linux
# program over a platform layer in tools/twin/ (pinned pthreads, mmap, /sys),
# printing the same records on stdout, so that `tools/qb compare` shows what
# the OS adds. The kernel's pure units are compiled unchanged.
#
#   make host        build/quietbench-host
#   make hosttest    the ASan+UBSan build (build/quietbench-host-asan) on
#                    TWIN_TEST_ARGS, checked by tests/twin/check_twin.py;
#                    then Ctrl-C (interrupt_test.py) and thp= (thp_test.py)
TWIN_KERNEL_SRCS := kernel/arch/spinlock.c kernel/measure/plan.c kernel/measure/plan_fit.c kernel/measure/deadline.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c kernel/measure/stats.c kernel/measure/stats_rec.c kernel/measure/limits.c kernel/run/options.c kernel/run/options_table.c kernel/run/options_report.c kernel/console/console_text.c \
	kernel/run/report.c kernel/measure/topo.c kernel/measure/topo_cache.c kernel/arch/cpuid_snap.c kernel/measure/tsc.c kernel/measure/tsc_choice.c kernel/run/reps.c kernel/measure/noise.c kernel/measure/gaps.c kernel/measure/pmu.c kernel/run/run.c kernel/run/tsc_sync.c kernel/measure/topo_online.c kernel/run/report_machine.c \
	kernel/run/evict.c kernel/run/flushcheck.c kernel/run/flushprobe.c kernel/run/flushset.c kernel/measure/chase.c kernel/measure/cold.c \
	kernel/acpi/smbios.c kernel/acpi/smbios_mem.c kernel/acpi/smbios_names.c kernel/acpi/smbios_summary.c \
	kernel/run/report_smbios.c kernel/run/report_smbios_dev.c kernel/lib/sha256.c kernel/lib/smbios_ep.c \
	$(sort $(wildcard kernel/bench/*.c))
TWIN_SRCS := $(TWIN_KERNEL_SRCS) $(sort $(wildcard tools/twin/*.c)) $(WL_SRCS)
override TWINCFLAGS := -std=gnu11 -O2 -g -pthread -fno-omit-frame-pointer -Wall -Wextra -Werror -Wshadow \
	$(KINC) -Iworkloads -Itools/twin -DQB_HOST_TWIN -MMD -MP -DQB_BUILD_ID='"$(BUILD_ID)"'
override TWINASAN := -fsanitize=address,undefined -fno-sanitize-recover=all
# Workloads are built for speed, as in the kernel.
twin_cflags = $(TWINCFLAGS) $(if $(filter workloads/%,$(1)),-O3)

TWIN_OBJS := $(patsubst %.c,$(BUILD)/twin/%.o,$(TWIN_SRCS))
TWIN_ASAN_OBJS := $(patsubst %.c,$(BUILD)/twin-asan/%.o,$(TWIN_SRCS))

$(patsubst %.c,$(BUILD)/%.o,$(BUILD_ID_KERNEL)) $(patsubst %.c,$(BUILD)/twin/%.o,$(BUILD_ID_TWIN)) \
	$(patsubst %.c,$(BUILD)/twin-asan/%.o,$(BUILD_ID_TWIN)): $(BUILD_ID_STAMP)
$(BUILD)/twin/%.o: %.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $< (twin)"; $(HOSTCC) $(call twin_cflags,$<) -c $< -o $@
$(BUILD)/twin-asan/%.o: %.c Makefile
	@mkdir -p $(@D)
	@echo "  CC $< (twin, asan)"; $(HOSTCC) $(call twin_cflags,$<) $(TWINASAN) -c $< -o $@

$(BUILD)/quietbench-host: $(TWIN_OBJS)
	$(HOSTCC) -pthread -o $@ $(TWIN_OBJS)
$(BUILD)/quietbench-host-asan: $(TWIN_ASAN_OBJS)
	$(HOSTCC) -pthread $(TWINASAN) -o $@ $(TWIN_ASAN_OBJS)

# Two CPUs and the quick profile: well under two minutes with the sanitizers.
TWIN_TEST_ARGS ?= profile=quick
.PHONY: host hosttest
host: $(BUILD)/quietbench-host
hosttest: $(BUILD)/quietbench-host-asan
	@mkdir -p $(BUILD)/twin
	@echo "  RUN $< $(TWIN_TEST_ARGS)"
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$< $(TWIN_TEST_ARGS) > $(BUILD)/twin/hosttest.log; status=$$?; \
		python3 tests/twin/check_twin.py --here --exit-status $$status $(BUILD)/twin/hosttest.log
	@echo "  RUN $< profile=quick workloads=selftest flush_noop=on"
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$< profile=quick workloads=selftest flush_noop=on > $(BUILD)/twin/flush-noop.log; status=$$?; \
		python3 tests/twin/check_twin.py --flush-noop --workloads selftest --exit-status $$status $(BUILD)/twin/flush-noop.log
	@ASAN_OPTIONS=detect_leaks=0 python3 tests/twin/interrupt_test.py $<
	@ASAN_OPTIONS=detect_leaks=0 python3 tests/twin/thp_test.py $<
	@ASAN_OPTIONS=detect_leaks=0 python3 tests/twin/noise_load_test.py $<
	@ASAN_OPTIONS=detect_leaks=0 python3 tests/twin/flush_busy_test.py $<
# ---- host twin (end) --------------------------------------------------------

# Everything above that CI must run: the image boots, the flasher's refusals,
# and the Linux twin under ASan and UBSan.
TEST_TARGETS += imagetest pagertest netboottest lava-check flashtest hosttest

# ---- fuzz (begin) -----------------------------------------------------------
# libFuzzer harnesses (issue 9) for what firmware, loaders and users hand the
# kernel: tests/fuzz/fuzz_NAME.c over the real sources, built with Debian's
# clang under ASan and UBSan; a broken invariant abort()s. Seeds from real
# inputs are committed in tests/fuzz/corpus/NAME/ (tests/fuzz/make_seeds.py
# writes them), inputs that once crashed in tests/fuzz/regress/NAME/.
#
#   make fuzz        fuzz each harness FUZZ_SECONDS (60 s); new inputs go to
#                    build/fuzz/corpus-NAME, the committed ones are only read
#   make fuzz-ci     replay every seed and regression input, then fuzz each
#                    harness FUZZ_CI_SECONDS (10 s)
#   make fuzz FUZZ_RUN="mb2 acpi"   only some harnesses
# Both exit non-zero after a crash and print the reproducer's path (under
# build/fuzz/artifacts/NAME/) and the command that replays it.
FUZZ_CC         ?= clang
FUZZ_SECONDS    ?= 60
FUZZ_CI_SECONDS ?= 10
override FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wshadow \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -DQB_HOST_TEST $(KINC) -Iboot -Itests/unit -Itests/fuzz

FUZZ_ACPI_SRCS := kernel/acpi/acpi.c kernel/acpi/acpi_madt.c kernel/acpi/acpi_srat.c kernel/acpi/acpi_slit.c kernel/acpi/acpi_hmat.c kernel/acpi/acpi_fixed.c kernel/acpi/acpi_dmar.c kernel/acpi/acpi_ivrs.c
fuzz_acpi_SRCS        := tests/fuzz/fuzz_acpi.c tests/unit/acpi_fixture.c $(FUZZ_ACPI_SRCS)
fuzz_acpi_table_SRCS  := tests/fuzz/fuzz_acpi_table.c $(FUZZ_ACPI_SRCS)
fuzz_options_SRCS     := tests/fuzz/fuzz_options.c kernel/run/options.c kernel/run/options_table.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
fuzz_mb2_SRCS         := tests/fuzz/fuzz_mb2.c boot/mb2.c boot/mmap.c
fuzz_efi_mmap_SRCS    := tests/fuzz/fuzz_efi_mmap.c boot/efi_mmap.c boot/mmap.c
fuzz_record_SRCS      := tests/fuzz/fuzz_record.c tests/fuzz/fuzz_json.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
fuzz_record_line_SRCS := tests/fuzz/fuzz_record_line.c kernel/console/record.c kernel/lib/fmt.c kernel/lib/fmt_dec.c kernel/lib/crc32.c
fuzz_smbios_SRCS      := tests/fuzz/fuzz_smbios.c kernel/acpi/smbios.c kernel/acpi/smbios_mem.c kernel/acpi/smbios_names.c kernel/acpi/smbios_summary.c kernel/lib/smbios_ep.c kernel/lib/fmt.c kernel/lib/fmt_dec.c
FUZZ_TARGETS := acpi acpi_table options mb2 efi_mmap record record_line smbios
FUZZ_RUN     ?= $(FUZZ_TARGETS)
FUZZ_BINS    := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

define fuzz_rule
$(BUILD)/fuzz/fuzz_$(1): $$(fuzz_$(1)_SRCS) $$(wildcard kernel/*/*.h boot/*.h tests/unit/*.h tests/fuzz/*.h) Makefile | $(BUILD)/.deps-ok
	@mkdir -p $$(@D)
	@echo "  CC $$@ (libFuzzer)"; $$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$(fuzz_$(1)_SRCS) -lm
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

.PHONY: fuzz fuzz-ci fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh --bin $(BUILD)/fuzz --seconds $(FUZZ_SECONDS) $(FUZZ_RUN)
fuzz-ci: $(FUZZ_BINS)
	tests/fuzz/run.sh --ci --bin $(BUILD)/fuzz --seconds $(FUZZ_CI_SECONDS) $(FUZZ_RUN)
# ---- fuzz (end) -------------------------------------------------------------

# ---- matrix (begin) -----------------------------------------------------------
# The boot matrix (issue 9): tests/boot/matrix.py boots the image in QEMU (TCG)
# across CPU counts, NUMA layouts, memory sizes, CPU models, with and without
# an HPET, and at the limits QEMU can reach; each cell checks the records.
# About 4 minutes on the 2-core CI machine, one cell at a time (docs/matrix.md).
#
#   make test-matrix                    every cell but the slow ones (MATRIX_CELLS="a b" picks cells)
#   make matrix-doc                     with the slow cells too, and rewrite docs/matrix.md
MATRIX_CELLS ?=
MATRIX_JOBS ?= 1
.PHONY: test-matrix matrix-doc
test-matrix: $(BUILD)/quietbench.efi $(TEST_IMG)
	python3 tests/boot/matrix.py --efi $< --image $(TEST_IMG) --logdir $(BUILD)/matrix --jobs $(MATRIX_JOBS) $(MATRIX_CELLS)
matrix-doc: $(BUILD)/quietbench.efi $(TEST_IMG)
	python3 tests/boot/matrix.py --efi $< --image $(TEST_IMG) --logdir $(BUILD)/matrix --jobs $(MATRIX_JOBS) --slow --doc docs/matrix.md
# CI runs make test: the matrix with it.
TEST_TARGETS += test-matrix
# ---- matrix (end) -------------------------------------------------------------

# A short fuzzing pass and every kept crash input, in CI too.
TEST_TARGETS += fuzz-ci

# ---- make test (begin) --------------------------------------------------------
# Everything the test targets need is built first (two jobs), then the targets
# run two at a time (tests/run_tests.py: a QEMU boot under TCG keeps about one of
# this 2-core machine's cores busy), the longest first, each target's output
# printed whole when it ends, every target's time at the end. TEST_JOBS=1 runs
# them one after another. Each target also runs alone: make boottest, ...
TEST_JOBS ?= 2
# The order the targets start in: longest first (docs/measured.md has their times).
TEST_ORDER := boottest imagetest plantest test-matrix fuzz-ci seriestest toolstest qemuruntest pagertest netboottest \
	screenshot sbtest parktest bochstest usbhctest reprotest x2apictest lava-check hosttest unit docscheck \
	flashtest asmtest layercheck
# What they need, built before any of them starts (so that no two build the same file at once).
TEST_PREREQS := $(UNIT_BINS) $(BUILD)/quietbench.efi $(BUILD)/quietbench-mb2.elf $(TEST_IMG) \
	$(BUILD)/quietbench-unsigned.img $(SB_FILES)/.ok $(BUILD)/qemu10/.ok $(BUILD)/quietbench-host-asan \
	$(BUILD)/workloads/counter_loops.o $(BUILD)/twin/workloads/counter_loops.o \
	$(BUILD)/workloads/locality_loops.o $(BUILD)/twin/workloads/locality_loops.o $(FBCON_FONT_C) $(FUZZ_BINS)
.PHONY: test test-prereqs
test-prereqs: $(TEST_PREREQS)
test: | $(BUILD)/.deps-ok
	@missing="$(filter-out $(TEST_ORDER),$(TEST_TARGETS))$(filter-out $(TEST_TARGETS),$(TEST_ORDER))"; \
	if [ -n "$$missing" ]; then echo "Makefile: TEST_ORDER and TEST_TARGETS differ: $$missing" >&2; exit 1; fi
	$(MAKE) --no-print-directory -j2 test-prereqs
	python3 tests/run_tests.py --jobs $(TEST_JOBS) $(TEST_ORDER)
# ---- make test (end) ----------------------------------------------------------
