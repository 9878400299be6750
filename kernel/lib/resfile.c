/* resfile.c - the results file's header, read and written; see resfile.h. */
#include "resfile.h"

/* ---- Constants ------------------------------------------------------------ */
#define NUM_DIGITS 20
#define COMMENT "# QuietBench writes its log below, on the stick it booted from; tools/qb parse reads this file.\n"
#define END_COMMENT "# The end of a QuietBench results file: the log never reaches this sector.\n"
#define SERIES_COMMENT "# One boot of a QuietBench series (series=N); tools/qb parse reads this file.\n"
#define SERIES_KEY "series="
#define OPTIONS_KEY "options="
#define SERIES_RUNNING "running"
#define SERIES_DONE "done"

/* ---- Private Functions ---------------------------------------------------- */
static bool same(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static size_t len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* "key=" at *p (within end): advance past it. */
static bool key(const char **p, const char *end, const char *k)
{
	size_t n = len(k);
	if ((size_t)(end - *p) < n || !same(*p, k, n))
		return false;
	*p += n;
	return true;
}

static bool number(const char **p, const char *end, uint64_t *v)
{
	if (end - *p < NUM_DIGITS + 1)
		return false;
	uint64_t x = 0;
	for (int i = 0; i < NUM_DIGITS; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(c - '0');
	}
	if ((*p)[NUM_DIGITS] != '\n')
		return false;
	*p += NUM_DIGITS + 1;
	*v = x;
	return true;
}

/* Printable characters up to the newline into out (cap bytes with the NUL). */
static bool text(const char **p, const char *end, char *out, size_t cap, bool hex)
{
	size_t n = 0;
	while (*p + n < end && (*p)[n] != '\n') {
		char c = (*p)[n];
		bool ok = hex ? (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') : c > ' ' && c < 0x7f;
		if (!ok || n + 1 >= cap)
			return false;
		out[n] = c;
		n++;
	}
	if (*p + n >= end || !n)
		return false;
	out[n] = 0;
	*p += n + 1;
	return true;
}

/* Exactly RESFILE_ID_LEN lowercase hex digits into out (with its NUL), then `stop`. */
static bool hex_id(const char **p, const char *end, char *out, char stop)
{
	if (end - *p < RESFILE_ID_LEN + 1)
		return false;
	for (int i = 0; i < RESFILE_ID_LEN; i++) {
		char c = (*p)[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		out[i] = c;
	}
	out[RESFILE_ID_LEN] = 0;
	if ((*p)[RESFILE_ID_LEN] != stop)
		return false;
	*p += RESFILE_ID_LEN + 1;
	return true;
}

/* One or two decimal digits, 1..RESFILE_SERIES_MAX, then `stop`. */
static bool small_num(const char **p, const char *end, uint32_t *v, char stop)
{
	uint32_t x = 0;
	int n = 0;
	while (*p + n < end && n < 2 && (*p)[n] >= '0' && (*p)[n] <= '9') {
		x = x * 10 + (uint32_t)((*p)[n] - '0');
		n++;
	}
	if (!n || *p + n >= end || (*p)[n] != stop || x < 1 || x > RESFILE_SERIES_MAX)
		return false;
	*p += n + 1;
	*v = x;
	return true;
}

/* After "series=": <id> boot <kk> of <nn> running|done try <t>, then the options line. */
static const char *series_lines(const char **p, const char *end, struct resfile_hdr *out)
{
	if (!hex_id(p, end, out->series, ' ') || !key(p, end, "boot ") || !small_num(p, end, &out->series_boot, ' ') ||
	    !key(p, end, "of ") || !small_num(p, end, &out->series_of, ' '))
		return "bad series line";
	if (key(p, end, SERIES_DONE " "))
		out->series_done = true;
	else if (!key(p, end, SERIES_RUNNING " "))
		return "bad series line (neither running nor done)";
	if (!key(p, end, "try ") || !small_num(p, end, &out->series_try, '\n'))
		return "bad series line";
	if (out->series_boot > out->series_of)
		return "bad series line (a boot past the series' last)";
	if (!key(p, end, OPTIONS_KEY))
		return "bad options line";
	size_t n = 0;
	while (*p + n < end && (*p)[n] != '\n') {
		if ((*p)[n] < ' ' || (*p)[n] > '~' || n >= RESFILE_OPTIONS_MAX)
			return "bad options line";
		out->options[n] = (*p)[n];
		n++;
	}
	if (*p + n >= end)
		return "bad options line";
	out->options[n] = 0;
	*p += n + 1;
	return 0;
}

static char *put(char *o, const char *s)
{
	while (*s)
		*o++ = *s++;
	return o;
}

static char *put_num(char *o, uint64_t v)
{
	for (int i = NUM_DIGITS - 1; i >= 0; i--) {
		o[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return o + NUM_DIGITS;
}

/* 1..99 as two digits. */
static char *put_2(char *o, uint32_t v)
{
	o[0] = (char)('0' + v / 10 % 10);
	o[1] = (char)('0' + v % 10);
	return o + 2;
}

static bool printable(const char *s, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (s[n] < ' ' || s[n] > '~' || n >= max)
			return false;
	return true;
}

static bool hex_text(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n == RESFILE_ID_LEN;
}

/* The series and options lines, when h has a series; false if they cannot be written. */
static bool put_series(char **o, const struct resfile_hdr *h)
{
	if (!h->series[0])
		return true;
	if (!hex_text(h->series) || h->series_boot < 1 || h->series_boot > h->series_of ||
	    h->series_of > RESFILE_SERIES_MAX || h->series_try < 1 || h->series_try > RESFILE_SERIES_MAX ||
	    !printable(h->options, RESFILE_OPTIONS_MAX))
		return false;
	char *p = put(put(*o, SERIES_KEY), h->series);
	p = put_2(put(p, " boot "), h->series_boot);
	p = put_2(put(p, " of "), h->series_of);
	p = put(p, h->series_done ? " " SERIES_DONE " try " : " " SERIES_RUNNING " try ");
	if (h->series_try >= 10)
		*p++ = (char)('0' + h->series_try / 10);
	*p++ = (char)('0' + h->series_try % 10);
	*o = put(put(put(put(p, "\n"), OPTIONS_KEY), h->options), "\n");
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
size_t resfile_boot_offset(const char *buf, size_t n)
{
	size_t kl = len(RESFILE_BOOT_KEY);
	for (size_t i = 0; i + kl + RESFILE_ID_LEN < n && i + kl + RESFILE_ID_LEN < RESFILE_HDR_BYTES; i++)
		if ((i == 0 || buf[i - 1] == '\n') && same(buf + i, RESFILE_BOOT_KEY, kl))
			return i + kl;
	return 0;
}

bool resfile_parse(const char *buf, size_t n, struct resfile_hdr *out, const char **why)
{
	const char *p = buf, *end = buf + (n < RESFILE_HDR_BYTES ? n : RESFILE_HDR_BYTES);
	size_t ml = sizeof(RESFILE_MAGIC) - 1;
	*why = 0;
	out->series[0] = 0;
	out->series_boot = out->series_of = out->series_try = 0;
	out->series_done = false;
	out->options[0] = 0;
	if (n < RESFILE_HDR_BYTES)
		*why = "shorter than a header";
	else if (!same(p, RESFILE_MAGIC, ml))
		*why = "not a QuietBench results file (no magic line)";
	else if (p += ml, !key(&p, end, "id=") || !text(&p, end, out->id, sizeof(out->id), true) ||
		 len(out->id) != RESFILE_ID_LEN)
		*why = "bad id line";
	else if (!key(&p, end, "file=") || !text(&p, end, out->file, sizeof(out->file), false))
		*why = "bad file line";
	else if (!key(&p, end, "offset=") || !number(&p, end, &out->offset))
		*why = "bad offset line";
	else if (!key(&p, end, "length=") || !number(&p, end, &out->length))
		*why = "bad length line";
	else if (!key(&p, end, "used=") || !number(&p, end, &out->used))
		*why = "bad used line";
	else if (!key(&p, end, RESFILE_BOOT_KEY) || !text(&p, end, out->boot, sizeof(out->boot), true) ||
		 len(out->boot) != RESFILE_ID_LEN)
		*why = "bad boot line";
	else if (key(&p, end, SERIES_KEY) && (*why = series_lines(&p, end, out)))
		;
	else if (out->offset % RESFILE_HDR_BYTES || out->length % RESFILE_HDR_BYTES)
		*why = "offset or length not whole sectors";
	else if (out->length <= 2 * RESFILE_HDR_BYTES)
		*why = "length leaves no room for a log";
	else if (out->used > RESFILE_LOG_MAX(out->length))
		*why = "used runs past the end of the log";
	return !*why;
}

bool resfile_end_parse(const char *buf, size_t n, struct resfile_end *out, const char **why)
{
	const char *p = buf, *end = buf + (n < RESFILE_HDR_BYTES ? n : RESFILE_HDR_BYTES);
	size_t ml = sizeof(RESFILE_END_MAGIC) - 1;
	*why = 0;
	if (n < RESFILE_HDR_BYTES)
		*why = "shorter than an end sector";
	else if (!same(p, RESFILE_END_MAGIC, ml))
		*why = "has no end sector (made by an older tools/mkimage, or damaged: rebuild the stick)";
	else if (p += ml, !key(&p, end, "id=") || !text(&p, end, out->id, sizeof(out->id), true) ||
		 len(out->id) != RESFILE_ID_LEN)
		*why = "bad id line in its end sector";
	else if (!key(&p, end, "file=") || !text(&p, end, out->file, sizeof(out->file), false))
		*why = "bad file line in its end sector";
	else if (!key(&p, end, RESFILE_BOOT_KEY) || !text(&p, end, out->boot, sizeof(out->boot), true) ||
		 len(out->boot) != RESFILE_ID_LEN)
		*why = "bad boot line in its end sector";
	return !*why;
}

bool resfile_format(char *buf, size_t cap, const struct resfile_hdr *h)
{
	if (cap < RESFILE_HDR_BYTES || len(h->id) != RESFILE_ID_LEN || !h->file[0] ||
	    len(h->file) > RESFILE_NAME_MAX || len(h->boot) != RESFILE_ID_LEN)
		return false;
	char *o = put(buf, RESFILE_MAGIC);
	o = put(put(put(o, "id="), h->id), "\n");
	o = put(put(put(o, "file="), h->file), "\n");
	o = put(put_num(put(o, "offset="), h->offset), "\n");
	o = put(put_num(put(o, "length="), h->length), "\n");
	o = put(put_num(put(o, "used="), h->used), "\n");
	o = put(put(put(o, RESFILE_BOOT_KEY), h->boot), "\n");
	if (!put_series(&o, h))
		return false;
	/* The longest name, series line and options still leave room for the comment (test_resfile). */
	o = put(o, h->series[0] ? SERIES_COMMENT : COMMENT);
	while (o < buf + RESFILE_HDR_BYTES)
		*o++ = RESFILE_PAD;
	return true;
}

bool resfile_end_format(char *buf, size_t cap, const struct resfile_hdr *h)
{
	if (cap < RESFILE_HDR_BYTES || len(h->id) != RESFILE_ID_LEN || !h->file[0] ||
	    len(h->file) > RESFILE_NAME_MAX || len(h->boot) != RESFILE_ID_LEN)
		return false;
	char *o = put(buf, RESFILE_END_MAGIC);
	o = put(put(put(o, "id="), h->id), "\n");
	o = put(put(put(o, "file="), h->file), "\n");
	o = put(put(put(o, RESFILE_BOOT_KEY), h->boot), "\n");
	o = put(o, END_COMMENT);
	while (o < buf + RESFILE_HDR_BYTES)
		*o++ = RESFILE_PAD;
	return true;
}
