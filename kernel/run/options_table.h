/* options_table.h - the command line's keys as a table (name, type, limits, default, help) and the names of their values: what kernel/run/options.c parses and options_help prints. Private to the options unit and its tests.
 *
 * Layer: run (kernel/run/run.h). */
#ifndef QB_KERNEL_OPTIONS_TABLE_H
#define QB_KERNEL_OPTIONS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "options.h"

#define OPT_N_ROWS 32           /* keys in opt_rows (initrd, accepted and dropped, included) */
#define OPT_SET_EMPTY "none"   /* dump=none */
#define OPT_CHOICE_LIST_MAX 48  /* "quick|full" and friends */
#define OPT_CONSOLE_NONE_WORD "none"
#define OPT_CONSOLE_IO_PREFIX "io:"
#define OPT_CONSOLE_MMIO8_PREFIX "mmio:"
#define OPT_CONSOLE_MMIO32_PREFIX "mmio32:"
#define OPT_CONSOLE_FORMS "com1..com4|io:0xPORT|mmio:0xADDR|mmio32:0xADDR[,BAUD]|none"
#define OPT_N_COM_PORTS 4
#define OPT_IO_PORT_MAX 0xfff8u   /* a 16550 spans 8 ports */
#define OPT_HEX_BASE 16

enum opt_type {
	OPT_T_UINT,       /* decimal in min..max */
	OPT_T_CHOICE,     /* one of choices[], stored as its index */
	OPT_T_SET,        /* comma list of choices[] or "none", stored as bits */
	OPT_T_WORKLOADS,  /* comma list of the caller's names or "all" */
	OPT_T_IGNORED,    /* accepted and dropped (initrd= from OVMF) */
	OPT_T_CONSOLE,    /* console=: a UART's place (see options.h), into console* */
	OPT_T_DURATION,   /* 150, 150s, 30m, 2h, 1h30m: seconds in min..max */
};

struct opt_row {
	const char *name;
	enum opt_type type;
	uint32_t min, max;            /* OPT_T_UINT limits */
	uint32_t def;                 /* the default */
	const char *zero_means;       /* help text when def 0 is a sentinel */
	const char *const *choices;   /* OPT_T_CHOICE / OPT_T_SET names */
	unsigned n_choices;
	size_t offset;                /* uint32_t field in struct options */
	const char *help;
};


/* The table writes enum fields as uint32_t: they must be the same size. */
_Static_assert(sizeof(enum opt_profile) == sizeof(uint32_t), "enum size");
_Static_assert(sizeof(enum opt_finish) == sizeof(uint32_t), "enum size");
_Static_assert(sizeof(enum opt_flush) == sizeof(uint32_t), "enum size");
_Static_assert(OPT_MAX_WORKLOADS == sizeof(uint32_t) * __CHAR_BIT__,
	       "one bit per workload");

/* off and on, by enum opt_onoff: a bare word (plan, safe) is its key =on. */
extern const char *const opt_onoff_names[2];

/* The keys, in the order help lists them. */
extern const struct opt_row opt_rows[OPT_N_ROWS];

/* console='s named ports: the PC/AT COM1-4. */
struct opt_com_port {
	const char *name;
	uint32_t port;
};
extern const struct opt_com_port opt_com_ports[OPT_N_COM_PORTS];

/* "a|b|c" of a row's choices, for messages (a set also takes "none"). */
void opt_choice_list(char *buf, size_t cap, const struct opt_row *row);

#endif
