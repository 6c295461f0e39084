// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of the `create` knob:
 * "NAME [mem=SIZE] [core=PCT] [class=online|offline] [managed=allow|refuse]
 * [dmabuf=allow|refuse] [channels=N|max] [rm_objects=N|max] [sysmem=SIZE]
 * [mapped=SIZE]".
 *
 * Strict on purpose: the operator's tools write these lines, and a typo that silently created an
 * instance with default limits would be worse than an error. Any deviation is -EINVAL and the
 * caller creates nothing.
 */
#include "qgpu_create_parse.h"

static bool qgpu_is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool qgpu_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/**
 * qgpu_name_valid() - whether a string is a valid instance name
 * @name: the candidate (need not be NUL-terminated)
 * @len: its length
 *
 * Return: true for [a-z0-9][a-z0-9_.-]{0,31}, false otherwise.
 */
bool qgpu_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!name || len < 1 || len > QGPU_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if ((c >= 'a' && c <= 'z') || qgpu_is_digit(c))
			continue;
		if (i > 0 && (c == '_' || c == '.' || c == '-'))
			continue;
		return false;
	}
	return true;
}

/**
 * qgpu_parse_size() - parse a memory size
 * @s: decimal digits with an optional binary suffix K, M, G or T (either case), or "max"
 * @len: length of @s (not NUL-terminated)
 * @out: the size in bytes; 0 for "max" (unlimited)
 *
 * A size of 0 is refused: an instance that can allocate nothing is a mistake, and 0 already
 * means unlimited in struct qgpu_create_req.
 *
 * Return: 0 on success, -EINVAL for anything else, overflow of 64 bits included.
 */
int qgpu_parse_size(const char *s, size_t len, u64 *out)
{
	u64 v = 0, mult = 1;
	size_t i, digits = len;

	if (!s || !out || !len)
		return -EINVAL;
	if (len == 3 && !memcmp(s, "max", 3)) {
		*out = 0;
		return 0;
	}
	switch (s[len - 1]) {
	case 'K': case 'k':
		mult = 1ULL << 10;
		break;
	case 'M': case 'm':
		mult = 1ULL << 20;
		break;
	case 'G': case 'g':
		mult = 1ULL << 30;
		break;
	case 'T': case 't':
		mult = 1ULL << 40;
		break;
	default:
		break;
	}
	if (mult != 1)
		digits--;
	if (!digits || digits > 20)
		return -EINVAL;
	for (i = 0; i < digits; i++) {
		u64 d;

		if (!qgpu_is_digit(s[i]))
			return -EINVAL;
		d = (u64)(s[i] - '0');
		if (v > (~0ULL - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (!v || v > ~0ULL / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

/* A decimal @min..@max of 1..@digits digits (at most 9: no overflow), no sign, no suffix. */
static int qgpu_parse_count(const char *s, size_t len, size_t digits, u32 min, u32 max, u32 *out)
{
	u32 v = 0;
	size_t i;

	if (!len || len > digits)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!qgpu_is_digit(s[i]))
			return -EINVAL;
		v = v * 10 + (u32)(s[i] - '0');
	}
	if (v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Parse a percentage QGPU_CORE_MIN..QGPU_CORE_MAX; at most 3 digits. */
static int qgpu_parse_core(const char *s, size_t len, u32 *out)
{
	return qgpu_parse_count(s, len, 3, QGPU_CORE_MIN, QGPU_CORE_MAX, out);
}

static bool qgpu_token_is(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len == n && !memcmp(s, word, n);
}

/* ``max`` (0) or 1..@limit of at most @digits digits; one trailing newline (a sysfs write). */
static int qgpu_parse_bound(const char *s, size_t len, size_t digits, u32 limit, u32 *out)
{
	if (len && s[len - 1] == '\n')
		len--;
	if (qgpu_token_is(s, len, "max")) {
		*out = 0;
		return 0;
	}
	return qgpu_parse_count(s, len, digits, 1, limit, out);
}

/**
 * qgpu_parse_channels() - parse a bound on an instance's channels and channel groups
 * @s: the value, not NUL-terminated
 * @len: its length; one trailing newline is allowed (a sysfs write)
 * @out: the bound on success: 1..QGPU_CHANNELS_LIMIT, or 0 for ``max`` (unbounded)
 *
 * Return: 0, or -EINVAL for anything else (0, a sign, a suffix, more than 5 digits).
 */
int qgpu_parse_channels(const char *s, size_t len, u32 *out)
{
	return qgpu_parse_bound(s, len, 5, QGPU_CHANNELS_LIMIT, out);
}

/**
 * qgpu_parse_rm_objects() - parse a bound on the RM objects an instance's processes hold
 * @s: the value, not NUL-terminated
 * @len: its length; one trailing newline is allowed (a sysfs write)
 * @out: the bound on success: 1..QGPU_RM_OBJECTS_LIMIT, or 0 for ``max`` (unbounded)
 *
 * Return: 0, or -EINVAL for anything else (0, a sign, a suffix, more than 8 digits).
 */
int qgpu_parse_rm_objects(const char *s, size_t len, u32 *out)
{
	return qgpu_parse_bound(s, len, 8, QGPU_RM_OBJECTS_LIMIT, out);
}

/**
 * qgpu_parse_mapped() - parse a bound on the GPU virtual address space an instance's RM mappings
 * span
 * @s: the value, not NUL-terminated
 * @len: its length; one trailing newline is allowed (a sysfs write)
 * @units: the bound on success, in 2 MiB regions: 1..QGPU_MAPPED_UNITS_LIMIT, or 0 for ``max``
 *
 * Return: 0, or -EINVAL for anything else: a bad size (qgpu_parse_size()), one that is not a
 * multiple of 2 MiB, or one above QGPU_MAPPED_UNITS_LIMIT regions.
 */
int qgpu_parse_mapped(const char *s, size_t len, u32 *units)
{
	u64 bytes;

	if (!s || !units)
		return -EINVAL;
	if (len && s[len - 1] == '\n')
		len--;
	if (qgpu_parse_size(s, len, &bytes))
		return -EINVAL;
	if (bytes & (QGPU_MAPPED_UNIT - 1) ||
	    (bytes >> QGPU_MAPPED_UNIT_SHIFT) > QGPU_MAPPED_UNITS_LIMIT)
		return -EINVAL;
	*units = (u32)(bytes >> QGPU_MAPPED_UNIT_SHIFT);
	return 0;
}

/* The keys after the name, in the order of their bits in the seen mask. */
enum qgpu_create_key {
	QGPU_KEY_MEM,
	QGPU_KEY_CORE,
	QGPU_KEY_CLASS,
	QGPU_KEY_MANAGED,
	QGPU_KEY_DMABUF,
	QGPU_KEY_CHANNELS,
	QGPU_KEY_RM_OBJECTS,
	QGPU_KEY_SYSMEM,
	QGPU_KEY_MAPPED,
	QGPU_KEY_COUNT,
};

static const char *const qgpu_create_keys[QGPU_KEY_COUNT] = {
	[QGPU_KEY_MEM] = "mem",
	[QGPU_KEY_CORE] = "core",
	[QGPU_KEY_CLASS] = "class",
	[QGPU_KEY_MANAGED] = "managed",
	[QGPU_KEY_DMABUF] = "dmabuf",
	[QGPU_KEY_CHANNELS] = "channels",
	[QGPU_KEY_RM_OBJECTS] = "rm_objects",
	[QGPU_KEY_SYSMEM] = "sysmem",
	[QGPU_KEY_MAPPED] = "mapped",
};

/* A value that is one of two words: 0 for @first, 1 for @second, else -EINVAL. */
static int qgpu_parse_either(const char *val, size_t vlen, const char *first, const char *second)
{
	if (qgpu_token_is(val, vlen, first))
		return 0;
	if (qgpu_token_is(val, vlen, second))
		return 1;
	return -EINVAL;
}

/*
 * One key=value token after the name. @seen has a bit per key already given, so that a key
 * given twice is an error rather than "last one wins".
 */
static int qgpu_parse_option(const char *tok, size_t len, struct qgpu_create_req *req,
			     u32 *seen)
{
	const char *eq = memchr(tok, '=', len);
	const char *val;
	size_t klen, vlen;
	int key, ret;

	if (!eq)
		return -EINVAL;
	klen = (size_t)(eq - tok);
	val = eq + 1;
	vlen = len - klen - 1;

	for (key = 0; key < QGPU_KEY_COUNT; key++)
		if (qgpu_token_is(tok, klen, qgpu_create_keys[key]))
			break;
	if (key == QGPU_KEY_COUNT || (*seen & (1u << key)))
		return -EINVAL;
	*seen |= 1u << key;

	switch (key) {
	case QGPU_KEY_MEM:
		return qgpu_parse_size(val, vlen, &req->mem);
	case QGPU_KEY_SYSMEM:
		return qgpu_parse_size(val, vlen, &req->sysmem);
	case QGPU_KEY_CORE:
		return qgpu_parse_core(val, vlen, &req->core);
	case QGPU_KEY_CHANNELS:
		return qgpu_parse_channels(val, vlen, &req->channels);
	case QGPU_KEY_RM_OBJECTS:
		return qgpu_parse_rm_objects(val, vlen, &req->rm_objects);
	case QGPU_KEY_MAPPED:
		return qgpu_parse_mapped(val, vlen, &req->mapped);
	case QGPU_KEY_CLASS:
		ret = qgpu_parse_either(val, vlen, "online", "offline");
		if (ret >= 0)
			req->cls = ret ? QGPU_CLASS_OFFLINE : QGPU_CLASS_ONLINE;
		return ret < 0 ? ret : 0;
	default:	/* managed and dmabuf: allow|refuse */
		ret = qgpu_parse_either(val, vlen, "allow", "refuse");
		if (ret < 0)
			return ret;
		if (key == QGPU_KEY_MANAGED)
			req->refuse_managed = ret;
		else
			req->refuse_dmabuf = ret;
		return 0;
	}
}

/**
 * qgpu_create_parse() - parse a line written to a GPU's `create` knob
 * @buf: the bytes written (sysfs passes them NUL-terminated, but only @len counts)
 * @len: their number; one trailing newline is allowed
 * @req: filled on success; untouched fields keep their defaults (mem max, core 100, online,
 *	managed allow, dmabuf refuse, channels max, rm_objects max, sysmem max, mapped max)
 *
 * Tokens are separated by spaces or tabs. The first is the name (see qgpu_name_valid()), the
 * others are mem=SIZE (qgpu_parse_size()), core=PCT (1..100), class=online|offline,
 * managed=allow|refuse, dmabuf=allow|refuse, channels=N|max (qgpu_parse_channels()),
 * rm_objects=N|max (qgpu_parse_rm_objects()), sysmem=SIZE (as mem=) and mapped=SIZE
 * (qgpu_parse_mapped()), each at most once, in any order. A NUL byte, a second newline, an
 * unknown key or a bad value is an error.
 *
 * Return: 0 on success, -EINVAL on any error.
 */
int qgpu_create_parse(const char *buf, size_t len, struct qgpu_create_req *req)
{
	size_t i = 0, start;
	u32 seen = 0;
	bool have_name = false;
	int ret;

	if (!buf || !req)
		return -EINVAL;
	if (len && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < len; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			return -EINVAL;

	memset(req, 0, sizeof(*req));
	req->core = QGPU_CORE_MAX;
	req->cls = QGPU_CLASS_ONLINE;
	req->refuse_dmabuf = true;

	i = 0;
	while (i < len) {
		while (i < len && qgpu_is_space(buf[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !qgpu_is_space(buf[i]))
			i++;
		if (!have_name) {
			if (!qgpu_name_valid(buf + start, i - start))
				return -EINVAL;
			memcpy(req->name, buf + start, i - start);
			req->name[i - start] = '\0';
			have_name = true;
			continue;
		}
		ret = qgpu_parse_option(buf + start, i - start, req, &seen);
		if (ret)
			return ret;
	}
	return have_name ? 0 : -EINVAL;
}

/**
 * qgpu_class_name() - the knob spelling of a class
 * @cls: the class
 *
 * Return: "online" or "offline".
 */
const char *qgpu_class_name(enum qgpu_class cls)
{
	return cls == QGPU_CLASS_OFFLINE ? "offline" : "online";
}
