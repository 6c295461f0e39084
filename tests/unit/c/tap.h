/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP test framework for qgpu's user-space unit tests of pure kernel-side code.
 *
 *	TEST(name) { EXPECT_EQ(1 + 1, 2); }
 *
 * Every TEST is one TAP test point named after it. A table-driven test may open one point per
 * row with TAP_CASE("fmt", ...): the point is then named "test: row". Points print as
 * "ok N - name" or "not ok N - name"; each failed expectation adds a diagnostic line
 * "# file:line: expected ...". The plan "1..N" is printed after the last point (valid TAP; the
 * number of points depends on the tables). tap_main() returns 1 if any point failed.
 *
 * EXPECT_* records a failure and continues; ASSERT_* also returns from the test function.
 * Tests register themselves through constructors, so a new test file only has to be listed in
 * (or matched by) the Makefile. Exactly one file (main.c) defines TAP_IMPLEMENTATION before
 * including this header.
 */
#ifndef QGPU_TAP_H
#define QGPU_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct tap_test {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct tap_test *next;
};

void tap_register(struct tap_test *t);
void tap_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool tap_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int tap_main(int argc, char **argv);

#define TEST(tname)								\
	static void tap_test_fn_##tname(void);					\
	static struct tap_test tap_test_##tname = {				\
		.name = #tname, .file = __FILE__, .fn = tap_test_fn_##tname,	\
	};									\
	__attribute__((constructor)) static void tap_test_reg_##tname(void)	\
	{									\
		tap_register(&tap_test_##tname);				\
	}									\
	static void tap_test_fn_##tname(void)

#define TAP_CASE(...) tap_case(__VA_ARGS__)

#define TAP_CHECK_(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Integer comparisons: both sides are evaluated once and compared as unsigned long long. */
#define TAP_CMP_(a, op, b) ({							\
	unsigned long long tap_a_ = (unsigned long long)(a);			\
	unsigned long long tap_b_ = (unsigned long long)(b);			\
	TAP_CHECK_(tap_a_ op tap_b_,						\
		   "expected %s " #op " %s, got %llu (0x%llx) and %llu (0x%llx)",	\
		   #a, #b, tap_a_, tap_a_, tap_b_, tap_b_);			\
})

#define EXPECT_EQ(a, b)	TAP_CMP_(a, ==, b)
#define EXPECT_NE(a, b)	TAP_CMP_(a, !=, b)
#define EXPECT_LT(a, b)	TAP_CMP_(a, <, b)
#define EXPECT_LE(a, b)	TAP_CMP_(a, <=, b)
#define EXPECT_GT(a, b)	TAP_CMP_(a, >, b)
#define EXPECT_GE(a, b)	TAP_CMP_(a, >=, b)

/* Signed comparison, for return codes such as -EINVAL. */
#define EXPECT_EQ_INT(a, b) ({							\
	long long tap_a_ = (long long)(a);					\
	long long tap_b_ = (long long)(b);					\
	TAP_CHECK_(tap_a_ == tap_b_, "expected %s == %s, got %lld and %lld",	\
		   #a, #b, tap_a_, tap_b_);					\
})

#define EXPECT_TRUE(c)	TAP_CHECK_(!!(c), "expected %s to be true", #c)
#define EXPECT_FALSE(c)	TAP_CHECK_(!(c), "expected %s to be false", #c)
#define EXPECT_NULL(p)	TAP_CHECK_((p) == NULL, "expected %s to be NULL", #p)
#define EXPECT_NOT_NULL(p) TAP_CHECK_((p) != NULL, "expected %s to be non-NULL", #p)

#define EXPECT_STREQ(a, b) ({							\
	const char *tap_sa_ = (a);						\
	const char *tap_sb_ = (b);						\
	TAP_CHECK_(tap_sa_ && tap_sb_ && strcmp(tap_sa_, tap_sb_) == 0,		\
		   "expected %s == %s, got \"%s\" and \"%s\"", #a, #b,		\
		   tap_sa_ ? tap_sa_ : "(null)", tap_sb_ ? tap_sb_ : "(null)");	\
})

#define ASSERT_TRUE(c)		do { if (!EXPECT_TRUE(c)) return; } while (0)
#define ASSERT_NOT_NULL(p)	do { if (!EXPECT_NOT_NULL(p)) return; } while (0)
#define ASSERT_EQ(a, b)		do { if (!EXPECT_EQ(a, b)) return; } while (0)
#define ASSERT_EQ_INT(a, b)	do { if (!EXPECT_EQ_INT(a, b)) return; } while (0)

#ifdef TAP_IMPLEMENTATION

#include <stdarg.h>
#include <stdio.h>

static struct tap_test *tap_head_;
static struct tap_test **tap_tail_ = &tap_head_;
static const struct tap_test *tap_cur_test_;
static char tap_point_[512];
static bool tap_point_open_;
static bool tap_point_is_case_;
static unsigned int tap_point_checks_;
static unsigned int tap_point_failures_;
static unsigned int tap_points_;
static unsigned int tap_failed_points_;
static char tap_diag_[8192];	/* diagnostics of the open point, printed after its line */
static size_t tap_diag_len_;

void tap_register(struct tap_test *t)
{
	t->next = NULL;
	*tap_tail_ = t;
	tap_tail_ = &t->next;
}

static void tap_point_begin_(const char *name, bool is_case)
{
	snprintf(tap_point_, sizeof(tap_point_), "%s", name);
	tap_point_open_ = true;
	tap_point_is_case_ = is_case;
	tap_point_checks_ = 0;
	tap_point_failures_ = 0;
	tap_diag_len_ = 0;
	tap_diag_[0] = '\0';
}

static void tap_point_end_(void)
{
	if (!tap_point_open_)
		return;
	tap_point_open_ = false;
	tap_points_++;
	if (tap_point_failures_) {
		tap_failed_points_++;
		printf("not ok %u - %s\n%s", tap_points_, tap_point_, tap_diag_);
	} else {
		printf("ok %u - %s\n", tap_points_, tap_point_);
	}
	fflush(stdout);
}

void tap_case(const char *fmt, ...)
{
	char row[384];
	char name[512];
	va_list ap;

	/* The test-level point before the first case is dropped if nothing was checked in it. */
	if (tap_point_open_ && !tap_point_is_case_ && tap_point_checks_ == 0)
		tap_point_open_ = false;
	tap_point_end_();

	va_start(ap, fmt);
	vsnprintf(row, sizeof(row), fmt, ap);
	va_end(ap);
	snprintf(name, sizeof(name), "%s: %s", tap_cur_test_ ? tap_cur_test_->name : "?", row);
	tap_point_begin_(name, true);
}

static void tap_diag_vappend_(const char *fmt, va_list ap)
{
	size_t room = sizeof(tap_diag_) - tap_diag_len_;
	int n;

	if (room <= 1)
		return;
	n = vsnprintf(tap_diag_ + tap_diag_len_, room, fmt, ap);
	if (n > 0)
		tap_diag_len_ += (size_t)n < room ? (size_t)n : room - 1;
}

static void tap_diag_append_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tap_diag_append_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_diag_vappend_(fmt, ap);
	va_end(ap);
}

/* Records one expectation; prints the diagnostic if it failed. Returns @ok. */
bool tap_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_point_checks_++;
	if (ok)
		return true;
	tap_point_failures_++;
	tap_diag_append_("# %s:%d: ", file, line);
	va_start(ap, fmt);
	tap_diag_vappend_(fmt, ap);
	va_end(ap);
	tap_diag_append_("\n");
	return false;
}

/* Runs every registered test, or only those whose name contains argv[1]. */
int tap_main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	struct tap_test *t;

	for (t = tap_head_; t; t = t->next) {
		if (filter && !strstr(t->name, filter))
			continue;
		tap_cur_test_ = t;
		tap_point_begin_(t->name, false);
		t->fn();
		if (tap_point_open_ && tap_point_is_case_ && tap_point_checks_ == 0)
			tap_check(false, t->file, 0, "case \"%s\" checked nothing", tap_point_);
		tap_point_end_();
	}
	tap_cur_test_ = NULL;
	printf("1..%u\n", tap_points_);
	if (tap_failed_points_)
		printf("# %u of %u failed\n", tap_failed_points_, tap_points_);
	return tap_failed_points_ ? 1 : 0;
}

#endif /* TAP_IMPLEMENTATION */

#endif /* QGPU_TAP_H */
