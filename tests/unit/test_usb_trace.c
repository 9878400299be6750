/* test_usb_trace.c - host tests for kernel/usb/xhci_ring.c and kernel/usb/bot.c against traces recorded from QEMU 7.2's qemu-xhci and usb-storage (tests/fixtures/usb/, dump=usb): the rings produce the recorded TRBs at the recorded addresses, the event ring hands back the recorded events in order, every command and IOC transfer is completed by an event naming it, and the Bulk-Only wrappers are rebuilt and checked byte for byte. Also the rings' wrap-around, which the traces do not reach, and the Chain bit a link TRB carries. */
#include <stdio.h>
#include <stdlib.h>

#include "bot.h"
#include "check.h"
#include "xhci_ring.h"

#define MAX_ITEMS 512
#define PAGE 4096u
#define RING_TRBS (PAGE / sizeof(struct xhci_trb))
#define MAX_RINGS 16

struct item {
	char dir[16];
	uint64_t at, param;
	uint32_t status, control;
	uint8_t bytes[32];
	unsigned n_bytes;
};

static struct item items[MAX_ITEMS];
static unsigned n_items;

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c - 'a' + 10;
}

static bool load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	n_items = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && n_items < MAX_ITEMS) {
		struct item *it = &items[n_items];
		unsigned long long at, param;
		char hex[80];
		memset(it, 0, sizeof(*it));
		if (sscanf(line, "@qb {\"v\":1,\"kind\":\"usb_trace\",\"dir\":\"%15[^\"]\",\"at\":\"0x%llx\",\"param\":\"0x%llx\","
				 "\"status\":\"0x%x\",\"control\":\"0x%x\"}", it->dir, &at, &param, &it->status, &it->control) == 5) {
			it->at = at;
			it->param = param;
			n_items++;
		} else if (sscanf(line, "@qb {\"v\":1,\"kind\":\"usb_trace\",\"dir\":\"%15[^\"]\",\"hex\":\"%64[0-9a-f]\"}",
				  it->dir, hex) == 2) {
			it->n_bytes = (unsigned)strlen(hex) / 2;
			for (unsigned i = 0; i < it->n_bytes; i++)
				it->bytes[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
			n_items++;
		}
	}
	fclose(f);
	return n_items > 0;
}

static const char *const traces[] = {
	"tests/fixtures/usb/qemu72-xhci-stick.log",
	"tests/fixtures/usb/qemu72-xhci-hub-stick.log",
};

/* Every ring the driver wrote (one page each): pushing what the trace says
 * gives the trace's addresses and control words, cycle bit included. */
static void replay_producers(void)
{
	static struct xhci_trb mem[MAX_RINGS][RING_TRBS];
	struct xhci_ring rings[MAX_RINGS];
	uint64_t base[MAX_RINGS];
	unsigned n = 0, pushed = 0;
	for (unsigned i = 0; i < n_items; i++) {
		struct item *it = &items[i];
		if (strcmp(it->dir, "cmd") && strcmp(it->dir, "xfer"))
			continue;
		uint64_t page = it->at & ~(uint64_t)(PAGE - 1);
		unsigned r = 0;
		while (r < n && base[r] != page)
			r++;
		if (r == n) {
			CHECK(n < MAX_RINGS);
			if (n >= MAX_RINGS)
				return;
			memset(mem[n], 0, sizeof(mem[n]));
			xhci_ring_init(&rings[n], mem[n], page, RING_TRBS, false);
			base[n++] = page;
		}
		uint64_t at = xhci_ring_push(&rings[r], it->param, it->status, it->control & ~XHCI_TRB_CYCLE);
		CHECK_EQ_U(at, it->at);
		const struct xhci_trb *t = &mem[r][(at - page) / sizeof(struct xhci_trb)];
		CHECK_EQ_U(t->control, it->control);
		CHECK_EQ_U(t->param, it->param);
		pushed++;
	}
	CHECK(pushed > 20);
	CHECK(n >= 4); /* the command ring, EP0 and the two bulk rings at least */
}

/* The events, laid out where the controller wrote them, come back in the
 * recorded order; then nothing more. */
static void replay_events(void)
{
	static struct xhci_trb mem[RING_TRBS];
	uint64_t page = 0;
	unsigned n = 0;
	memset(mem, 0, sizeof(mem));
	for (unsigned i = 0; i < n_items; i++) {
		struct item *it = &items[i];
		if (strcmp(it->dir, "event"))
			continue;
		if (!page)
			page = it->at & ~(uint64_t)(PAGE - 1);
		struct xhci_trb *t = &mem[(it->at - page) / sizeof(struct xhci_trb)];
		t->param = it->param;
		t->status = it->status;
		t->control = it->control;
		n++;
	}
	CHECK(n > 10);
	struct xhci_evring e;
	xhci_evring_init(&e, mem, page, RING_TRBS);
	unsigned got = 0;
	for (unsigned i = 0; i < n_items; i++) {
		struct item *it = &items[i];
		struct xhci_trb t;
		if (strcmp(it->dir, "event"))
			continue;
		CHECK_EQ_U(xhci_evring_deq_phys(&e), it->at);
		CHECK(xhci_evring_next(&e, &t));
		CHECK_EQ_U(t.param, it->param);
		CHECK_EQ_U(t.control, it->control);
		got++;
	}
	struct xhci_trb t;
	CHECK(!xhci_evring_next(&e, &t));
	CHECK_EQ_U(got, n);
}

/* Every command, and every transfer TRB asking for an event, is answered by
 * an event of the right type that names its address, with success (or a
 * short packet). */
static void replay_completions(void)
{
	unsigned answered = 0;
	for (unsigned i = 0; i < n_items; i++) {
		struct item *it = &items[i];
		bool cmd = !strcmp(it->dir, "cmd");
		if (!cmd && !(!strcmp(it->dir, "xfer") && (it->control & XHCI_TRB_IOC)))
			continue;
		bool found = false;
		for (unsigned j = i + 1; j < n_items && !found; j++) {
			struct item *ev = &items[j];
			if (strcmp(ev->dir, "event") || ev->param != it->at)
				continue;
			found = true;
			CHECK_EQ_U(XHCI_TRB_GET_TYPE(ev->control), cmd ? XHCI_TRB_COMMAND_COMPLETION : XHCI_TRB_TRANSFER_EVENT);
			uint32_t cc = XHCI_EVT_CODE(ev->status);
			CHECK(cc == XHCI_CC_SUCCESS || cc == XHCI_CC_SHORT_PACKET);
		}
		CHECK(found);
		answered += found;
	}
	CHECK(answered > 10);
}

/* Each recorded CBW is what bot_cbw builds from its own fields, and the CSW
 * after it passes bot_csw_check; damaged copies of it do not. */
static void replay_bot(void)
{
	unsigned pairs = 0, writes = 0;
	for (unsigned i = 0; i + 1 < n_items; i++) {
		struct item *c = &items[i], *s = NULL;
		if (strcmp(c->dir, "cbw"))
			continue;
		for (unsigned j = i + 1; j < n_items && !s; j++)
			if (!strcmp(items[j].dir, "csw"))
				s = &items[j];
			else if (!strcmp(items[j].dir, "cbw"))
				break;
		CHECK_EQ_U(c->n_bytes, sizeof(struct bot_cbw));
		struct bot_cbw rec, built;
		memcpy(&rec, c->bytes, sizeof(rec));
		bot_cbw(&built, rec.tag, rec.data_len, rec.flags & BOT_CBW_IN, rec.lun, rec.cb, rec.cb_len);
		CHECK(memcmp(&built, c->bytes, sizeof(built)) == 0);
		writes += rec.cb[0] == SCSI_WRITE10;
		if (!s)
			continue;
		uint32_t residue;
		bool failed;
		const char *why = "unset";
		CHECK(bot_csw_check(s->bytes, s->n_bytes, &rec, &residue, &failed, &why));
		CHECK(why == NULL && !failed && residue == 0);
		uint8_t bad[13];
		memcpy(bad, s->bytes, 13);
		bad[4] ^= 1;
		CHECK(!bot_csw_check(bad, 13, &rec, &residue, &failed, &why));
		CHECK_STR(why, "the status wrapper answers another command (tag)");
		memcpy(bad, s->bytes, 13);
		bad[12] = BOT_FAILED;
		CHECK(!bot_csw_check(bad, 13, &rec, &residue, &failed, &why) && failed);
		bad[12] = BOT_PHASE_ERROR;
		CHECK(!bot_csw_check(bad, 13, &rec, &residue, &failed, &why) && !failed);
		CHECK_STR(why, "phase error: the device needs a reset recovery");
		memcpy(bad, s->bytes, 13);
		bad[0] = 0;
		CHECK(!bot_csw_check(bad, 13, &rec, &residue, &failed, &why));
		CHECK(!bot_csw_check(s->bytes, 12, &rec, &residue, &failed, &why));
		pairs++;
	}
	CHECK(pairs >= 4);
	CHECK(writes >= 2); /* the header and the log */
	for (unsigned i = 0; i < n_items; i++)
		if (!strcmp(items[i].dir, "cbw")) {
			CHECK_EQ_U(items[i].bytes[15], SCSI_INQUIRY); /* the first command (CDB at byte 15 of the CBW) */
			break;
		}
}

TEST(traces_replay)
{
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		CHECK(load(traces[i]));
		replay_producers();
		replay_events();
		replay_completions();
		replay_bot();
	}
}

/* The producer ring wraps through its link TRB: the link is handed over
 * with the old cycle, and the next TRB goes to the start with the new one. */
TEST(producer_ring_wraps)
{
	static struct xhci_trb mem[4];
	struct xhci_ring r;
	memset(mem, 0, sizeof(mem));
	xhci_ring_init(&r, mem, 0x1000, 4, false);
	CHECK_EQ_U(mem[3].param, 0x1000);
	CHECK_EQ_U(mem[3].control & XHCI_TRB_CYCLE, 0);
	CHECK_EQ_U(xhci_ring_deq_ptr(&r), 0x1001);
	for (unsigned round = 0; round < 3; round++) {
		uint32_t cyc = round % 2 ? 0 : 1;
		for (unsigned k = 0; k < 3; k++) {
			uint64_t at = xhci_ring_push(&r, k, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_CYCLE);
			CHECK_EQ_U(at, 0x1000 + 16 * k);
			CHECK_EQ_U(mem[k].control & XHCI_TRB_CYCLE, cyc);
		}
		CHECK_EQ_U(XHCI_TRB_GET_TYPE(mem[3].control), XHCI_TRB_LINK);
		CHECK(mem[3].control & XHCI_TRB_TC);
		CHECK_EQ_U(mem[3].control & XHCI_TRB_CYCLE, cyc);
		CHECK_EQ_U(xhci_ring_deq_ptr(&r), 0x1000u | (cyc ^ 1));
	}
}

/* The event ring's consumer cycle flips at the end of the segment: old
 * events (the previous lap's cycle) are not taken again. */
TEST(event_ring_wraps)
{
	static struct xhci_trb mem[3];
	struct xhci_evring e;
	struct xhci_trb t;
	memset(mem, 0, sizeof(mem));
	xhci_evring_init(&e, mem, 0x2000, 3);
	CHECK(!xhci_evring_next(&e, &t));
	for (unsigned k = 0; k < 3; k++)
		mem[k] = (struct xhci_trb){ 100 + k, 0, XHCI_TRB_TYPE(XHCI_TRB_TRANSFER_EVENT) | 1 };
	for (unsigned k = 0; k < 3; k++) {
		CHECK(xhci_evring_next(&e, &t));
		CHECK_EQ_U(t.param, 100 + k);
	}
	CHECK_EQ_U(xhci_evring_deq_phys(&e), 0x2000);
	CHECK(!xhci_evring_next(&e, &t)); /* lap two wants cycle 0: these are old */
	mem[0].control &= ~1u;
	mem[0].param = 200;
	CHECK(xhci_evring_next(&e, &t));
	CHECK_EQ_U(t.param, 200);
	CHECK(!xhci_evring_next(&e, &t));
}

/* The link TRB carries the Chain bit of the TRB before it, so that a TD that
 * goes on past the end of the segment stays one TD (xHCI 4.11.5.1, Linux
 * inc_enq); on an xHCI 0.95 (chain_links) every link is chained. */
TEST(link_trb_carries_the_chain_bit)
{
	static struct xhci_trb mem[4];
	struct xhci_ring r;
	memset(mem, 0, sizeof(mem));
	xhci_ring_init(&r, mem, 0x1000, 4, false);
	CHECK_EQ_U(mem[3].control & XHCI_TRB_CHAIN, 0);
	xhci_ring_push(&r, 1, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL));
	xhci_ring_push(&r, 2, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL));
	xhci_ring_push(&r, 3, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_CHAIN); /* a TD that goes on ... */
	CHECK(mem[3].control & XHCI_TRB_CHAIN);                                   /* ... across the link */
	CHECK_EQ_U(mem[3].control & XHCI_TRB_CYCLE, 1);
	xhci_ring_push(&r, 4, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC);  /* it ends at the top */
	xhci_ring_push(&r, 5, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL));
	xhci_ring_push(&r, 6, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC);  /* a TD that ends at the link */
	CHECK_EQ_U(mem[3].control & XHCI_TRB_CHAIN, 0);
	CHECK_EQ_U(mem[3].control & XHCI_TRB_CYCLE, 0);
	memset(mem, 0, sizeof(mem));
	xhci_ring_init(&r, mem, 0x1000, 4, true);
	CHECK(mem[3].control & XHCI_TRB_CHAIN);
	for (unsigned k = 0; k < 3; k++)
		xhci_ring_push(&r, k, 0, XHCI_TRB_TYPE(XHCI_TRB_NORMAL) | XHCI_TRB_IOC);
	CHECK(mem[3].control & XHCI_TRB_CHAIN);
	CHECK_EQ_U(XHCI_TRB_GET_TYPE(mem[3].control), XHCI_TRB_LINK);
}

TEST(scsi_blocks)
{
	uint8_t cdb[16];
	CHECK_EQ_U(scsi_cdb_rw10(cdb, true, 0x01020304, 0x0506), 10);
	static const uint8_t want[10] = { SCSI_WRITE10, 0, 1, 2, 3, 4, 0, 5, 6, 0 };
	CHECK(memcmp(cdb, want, 10) == 0);
	static const uint8_t cap[8] = { 0, 1, 0x3f, 0xff, 0, 0, 2, 0 };
	uint32_t last, bs;
	scsi_capacity10(cap, &last, &bs);
	CHECK_EQ_U(last, 0x13fff);
	CHECK_EQ_U(bs, 512);
	char text[64];
	static const uint8_t sense[18] = { 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x28, 0 };
	scsi_sense_text(sense, sizeof(sense), text, sizeof(text));
	CHECK_STR(text, "sense key 0x6 asc 0x28 ascq 0x00");
}

int main(void)
{
	RUN(traces_replay);
	RUN(producer_ring_wraps);
	RUN(event_ring_wraps);
	RUN(link_trb_carries_the_chain_bit);
	RUN(scsi_blocks);
	return check_summary("usb_trace");
}
