/* test_cpuid_snap.c - kernel/arch/cpuid_snap.c's decoding beyond the topology:
 * the hypervisor's signature and name (leaf 0x40000000, read only under
 * CPUID.1:ECX[31]), and the AMD node of a CPU (0x8000001E, or MSR C001_100C
 * on family 10h), on real dumps (tests/fixtures/cpuid) and on the signature
 * registers each hypervisor documents. */
#include "check.h"
#include "cpuid_fixture.h"
#include "cpuid_snap.h"
#include "lib.h"

static struct cpuid_snap S;

/* A snapshot under a hypervisor whose leaf 0x40000000 is (ebx, ecx, edx). */
static void under(uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	memset(&S, 0, sizeof(S));
	S.have_leaf1 = true;
	S.leaf1.ecx = 1u << CPUID_1_ECX_HYPERVISOR;
	S.have_hv = true;
	S.hv = (struct cpuid_regs){ 0x40000001, ebx, ecx, edx };
}

/* This project's VM (bhyve) as dumped, and bare metal that never gets asked. */
TEST(hypervisor_of_real_dumps)
{
	char sig[CPUID_HV_SIG_LEN + 1];
	CHECK(cpuid_fixture_load("oxide-bhyve-2vcpu"));
	for (uint32_t cpu = 0; cpu < cpuid_fixture_cpus(); cpu++) {
		cpuid_fixture_snap(cpu, &S);
		CHECK_EQ_U(cpuid_fixture_asked(CPUID_LEAF_HV), 1);
		CHECK(cpuid_snap_hv_vendor(&S, sig));
		CHECK_STR(sig, "bhyve bhyve ");
		CHECK_STR(cpuid_hv_name(sig), "bhyve");
	}
	static const char *const metal[] = { "ryzen-7600", "core-i9-14900k", "opteron-6238-2p" };
	for (unsigned m = 0; m < ARRAY_SIZE(metal); m++) {
		CHECK(cpuid_fixture_load(metal[m]));
		cpuid_fixture_snap(0, &S);
		CHECK_EQ_U(cpuid_fixture_asked(CPUID_LEAF_HV), 0); /* undefined range on bare metal */
		sig[0] = 'x';
		CHECK(!cpuid_snap_hv_vendor(&S, sig));
		CHECK_STR(sig, "");
	}
}

/* Signatures as the registers hold them (EBX, ECX, EDX, little-endian): the
 * trailing NULs go, other unprintable bytes become '?', and the name is the
 * hypervisor's or, unknown, the signature itself. */
TEST(hypervisor_signatures)
{
	static const struct {
		uint32_t ebx, ecx, edx;
		const char *sig, *name;
	} cases[] = {
		{ 0x4b4d564b, 0x564b4d56, 0x0000004d, "KVMKVMKVM", "KVM" },        /* Linux kvm_para.h */
		{ 0x54474354, 0x43544743, 0x47435447, "TCGTCGTCGTCG", "QEMU TCG" }, /* QEMU target/i386 */
		{ 0x7263694d, 0x666f736f, 0x76482074, "Microsoft Hv", "Hyper-V" },  /* Hyper-V TLFS */
		{ 0x61774d56, 0x4d566572, 0x65726177, "VMwareVMware", "VMware" },
		{ 0x566e6558, 0x65584d4d, 0x4d4d566e, "XenVMMXenVMM", "Xen" },
		{ 0x76796862, 0x68622065, 0x20657679, "bhyve bhyve ", "bhyve" },    /* this VM's */
		{ 0x51584e51, 0x53424d56, 0x00004751, "QNXQVMBSQG", "QNX" },
		{ 0x70726c20, 0x68797065, 0x72762020, " lrpepyh  vr", "Parallels" },
		{ 0x426f6f46, 0x61427261, 0x7875517a, "FooBarBazQux", "FooBarBazQux" }, /* unknown: itself */
		{ 0x00016261, 0x00000000, 0x00000063, "ab?\?\?\?\?\?c", "ab?\?\?\?\?\?c" }, /* NULs inside are not trailing */
		{ 0, 0, 0, "", "unknown" },                                         /* no signature */
	};
	char sig[CPUID_HV_SIG_LEN + 1];
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		under(cases[i].ebx, cases[i].ecx, cases[i].edx);
		CHECK(cpuid_snap_hv_vendor(&S, sig));
		CHECK_STR(sig, cases[i].sig);
		CHECK_STR(cpuid_hv_name(sig), cases[i].name);
	}
	under(0x4b4d564b, 0x564b4d56, 0x0000004d);
	S.leaf1.ecx = 0; /* the leaf's registers without the hypervisor bit mean nothing */
	CHECK(!cpuid_snap_hv_vendor(&S, sig));
	CHECK_STR(sig, "");
}

/* Where a CPU's AMD node comes from: 0x8000001E on family 15h, the MSR on
 * family 10h (wanted even where an engineering sample clears Fn8000_0001
 * ECX[19]), nothing on Zen and Intel, or where the MSR was not read. */
TEST(amd_node_sources)
{
	uint32_t node = 99, nodes = 99;
	CHECK(cpuid_fixture_load("opteron-6238-2p"));
	cpuid_fixture_snap(6, &S); /* APIC ID 0x26: die 1 of package 1 */
	CHECK(!cpuid_snap_wants_node_msr(&S));
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_E1E);
	CHECK_EQ_U(node, 1);
	CHECK_EQ_U(nodes, 2);
	cpuid_fixture_snap(18, &S);
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_E1E);
	CHECK_EQ_U(node, 3);

	CHECK(cpuid_fixture_load("opteron-6100-es-2p"));
	cpuid_fixture_snap(13, &S);
	CHECK(cpuid_snap_wants_node_msr(&S));
	CHECK_EQ_U(S.node_msr_state, CPUID_NODE_MSR_OK);
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_MSR);
	CHECK_EQ_U(node, 2);
	CHECK_EQ_U(nodes, 2);
	S.node_msr_state = CPUID_NODE_MSR_UNAVAILABLE;
	node = nodes = 99;
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_NONE);
	CHECK(node == 99 && nodes == 99);

	static const char *const none[] = { "ryzen-7600", "core-i9-14900k", "oxide-bhyve-2vcpu" };
	for (unsigned m = 0; m < ARRAY_SIZE(none); m++) {
		CHECK(cpuid_fixture_load(none[m]));
		cpuid_fixture_snap(0, &S);
		CHECK(!cpuid_snap_wants_node_msr(&S));
		CHECK_EQ_U(S.node_msr_state, CPUID_NODE_MSR_NOT_READ);
	}
	CHECK(cpuid_fixture_load("ryzen-7600")); /* Zen: 0x8000001E has the node, but it is not a die's L3 */
	cpuid_fixture_snap(0, &S);
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_E1E);
	CHECK(cpuid_fixture_load("core-i9-14900k"));
	cpuid_fixture_snap(0, &S);
	CHECK_EQ_U(cpuid_snap_amd_node(&S, &node, &nodes), CPUID_NODE_NONE);
}

int main(void)
{
	RUN(hypervisor_of_real_dumps);
	RUN(hypervisor_signatures);
	RUN(amd_node_sources);
	return check_summary("cpuid_snap");
}
