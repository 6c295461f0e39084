// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/qgpu_sched_core.c: the share arithmetic. A small simulation drives it as qgpu_sched.c
 * does (account, then decide, at each window end or every 1 ms at the latest); instances that
 * are busy ring every millisecond of their own GPU time. Shares are the GPU time the scheduler
 * allowed, which is what the engine delivers when controls take effect. Every instance has one
 * channel group on the runlist, with work while it is busy.
 */
#include <stdio.h>

#include "tap.h"
#include "qgpu_sched_core.h"

#define MS 1000000ull
#define MAXI 64

struct sim {
	struct qgpu_sc sc;
	struct qgpu_sc_inst in[MAXI];
	struct qgpu_sc_inst *v[MAXI];
	bool busy[MAXI];
	unsigned int n;
	u64 now;
};

static void sim_init(struct sim *s, enum qgpu_policy policy, unsigned int n, const u32 *core,
		     const enum qgpu_class *cls)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	qgpu_sc_init(&s->sc);
	s->sc.policy = policy;
	s->n = n;
	s->now = 1000 * MS;
	for (k = 0; k < n; k++) {
		qgpu_sc_inst_init(&s->in[k], core[k], cls ? cls[k] : QGPU_CLASS_ONLINE);
		s->in[k].groups_rr = 1;
		s->v[k] = &s->in[k];
		s->busy[k] = true;
	}
}

/* Run for @ns; returns each instance's GPU time in that span through @got. */
static void sim_run(struct sim *s, u64 ns, u64 *got)
{
	u64 end = s->now + ns, start[MAXI], next;
	unsigned int k;

	/* what ran since the last decision ran before the span */
	qgpu_sc_account(&s->sc, s->v, s->n, s->now);
	for (k = 0; k < s->n; k++)
		start[k] = s->in[k].gpu_time_ns;
	while (s->now < end) {
		for (k = 0; k < s->n; k++) {
			s->in[k].groups_work = s->busy[k];
			if (s->busy[k] && (s->in[k].run || !qgpu_sc_active(&s->in[k])))
				qgpu_sc_ring(&s->sc, &s->in[k]);
		}
		qgpu_sc_account(&s->sc, s->v, s->n, s->now);
		next = qgpu_sc_decide(&s->sc, s->v, s->n, s->now);
		if (next > s->now + MS)
			next = s->now + MS;
		if (next > end)
			next = end;
		s->now = next;
	}
	qgpu_sc_account(&s->sc, s->v, s->n, s->now);
	for (k = 0; got && k < s->n; k++)
		got[k] = s->in[k].gpu_time_ns - start[k];
}

static double pct(u64 part, u64 whole)
{
	return 100.0 * (double)part / (double)whole;
}

TEST(sched_policy_names_round_trip)
{
	enum qgpu_policy p;

	ASSERT_EQ_INT(qgpu_policy_parse("fixed-share\n", 12, &p), 0);
	EXPECT_EQ(p, QGPU_POLICY_FIXED_SHARE);
	ASSERT_EQ_INT(qgpu_policy_parse("burst-share", 11, &p), 0);
	EXPECT_EQ(p, QGPU_POLICY_BURST_SHARE);
	ASSERT_EQ_INT(qgpu_policy_parse("best-effort", 11, &p), 0);
	EXPECT_EQ(p, QGPU_POLICY_BEST_EFFORT);
	EXPECT_EQ_INT(qgpu_policy_parse("fixed", 5, &p), -EINVAL);
	EXPECT_EQ_INT(qgpu_policy_parse("best-effort\n\n", 13, &p), -EINVAL);
	EXPECT_EQ_INT(qgpu_policy_parse("", 0, &p), -EINVAL);
	EXPECT_STREQ(qgpu_policy_name(QGPU_POLICY_BURST_SHARE), "burst-share");
	EXPECT_STREQ(qgpu_policy_name(QGPU_POLICIES), "?");
}

TEST(sched_admission_sums_to_100)
{
	EXPECT_TRUE(qgpu_sc_admit(QGPU_POLICY_FIXED_SHARE, 70, 30));
	EXPECT_FALSE(qgpu_sc_admit(QGPU_POLICY_FIXED_SHARE, 70, 31));
	EXPECT_FALSE(qgpu_sc_admit(QGPU_POLICY_BURST_SHARE, 100, 1));
	EXPECT_TRUE(qgpu_sc_admit(QGPU_POLICY_BEST_EFFORT, 100, 100));
}

static void check_fixed(const u32 *core, unsigned int n)
{
	struct sim s;
	u64 got[MAXI], total = 1000 * MS;
	unsigned int k;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, n, core, NULL);
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, total, got);
	for (k = 0; k < n; k++) {
		EXPECT_GE(pct(got[k], total), core[k] - 0.5);
		EXPECT_LE(pct(got[k], total), core[k] + 0.5);
	}
}

TEST(sched_fixed_share_hits_targets)
{
	static const u32 a[] = { 30, 70 }, b[] = { 10, 90 }, c[] = { 20, 20, 20, 20, 20 };

	check_fixed(a, 2);
	check_fixed(b, 2);
	check_fixed(c, 5);
}

/* The longest time @k was held in a row over @ns of fixed-share, all busy. */
static u64 longest_hold(struct sim *s, unsigned int k, u64 ns)
{
	u64 end = s->now + ns, held_since = 0, longest = 0;

	while (s->now < end) {
		sim_run(s, MS, NULL);
		if (s->in[k].run) {
			held_since = 0;
			continue;
		}
		if (!held_since)
			held_since = s->now - MS;
		if (s->now - held_since > longest)
			longest = s->now - held_since;
	}
	return longest;
}

TEST(sched_fixed_share_holds_outlast_the_grace)
{
	static const u32 a[] = { 30, 70 }, b[] = { 10, 90 };
	struct sim s;

	/*
	 * Whether held groups still run shows only in a hold longer than qgpu_sched.c's 5 ms
	 * grace. With windows in the same order every 10 ms period, the 30 % instance would be
	 * held 7 ms at a time, the 10 % one 9 ms; the last owner going on first doubles that.
	 */
	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, a, NULL);
	sim_run(&s, 100 * MS, NULL);
	EXPECT_GE(longest_hold(&s, 0, 200 * MS), 13 * MS);
	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, b, NULL);
	sim_run(&s, 100 * MS, NULL);
	EXPECT_GE(longest_hold(&s, 0, 200 * MS), 17 * MS);
}

/*
 * period_us: a longer period keeps the shares and switches less often, its windows as long as the
 * period allows (a real GPU's controls cost about 1 ms a switch).
 */
TEST(sched_period_knob_lengthens_windows_and_keeps_shares)
{
	static const u32 core[] = { 30, 70 };
	u64 got[MAXI], total = 2000 * MS;
	struct sim s;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	sim_run(&s, 100 * MS, NULL);
	EXPECT_LE(longest_hold(&s, 0, 500 * MS), 15 * MS);	/* 7 ms windows, A B | B A */
	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	s.sc.base_period_ns = 50 * MS;
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, total, got);
	EXPECT_GE(pct(got[0], total), 29.5);
	EXPECT_LE(pct(got[0], total), 30.5);
	EXPECT_EQ(s.sc.period_ns, 50 * MS);
	/* the 70 % instance's 35 ms come in one window: the other waits that long */
	EXPECT_GE(longest_hold(&s, 0, 500 * MS), 30 * MS);
}

TEST(sched_fixed_share_caps_a_lone_instance)
{
	static const u32 core[] = { 30, 70 };
	struct sim s;
	u64 got[MAXI];

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	s.busy[1] = false;
	sim_run(&s, 1000 * MS, got);
	EXPECT_LE(pct(got[0], 1000 * MS), 30.5);
	EXPECT_GE(pct(got[0], 1000 * MS), 29.5);
	EXPECT_EQ(got[1], 0);
}

TEST(sched_burst_share_lends_idle_time_and_takes_it_back)
{
	static const u32 core[] = { 30, 70 };
	struct sim s;
	u64 got[MAXI], t0;

	sim_init(&s, QGPU_POLICY_BURST_SHARE, 2, core, NULL);
	s.busy[1] = false;
	sim_run(&s, 1000 * MS, got);
	EXPECT_GE(pct(got[0], 1000 * MS), 99.0);	/* alone: nearly everything */

	/* the owner wakes: within 10 ms it is running its window */
	s.busy[1] = true;
	t0 = s.now;
	while (!s.in[1].run && s.now - t0 < 20 * MS)
		sim_run(&s, 100000, NULL);
	EXPECT_LE(s.now - t0, 10 * MS);
	sim_run(&s, 1000 * MS, got);
	EXPECT_GE(pct(got[1], 1000 * MS), 69.5);
	EXPECT_GE(pct(got[0], 1000 * MS), 29.5);
}

TEST(sched_best_effort_runs_everyone)
{
	static const u32 core[] = { 100, 100, 100 };
	struct sim s;
	u64 got[MAXI];
	unsigned int k;

	sim_init(&s, QGPU_POLICY_BEST_EFFORT, 3, core, NULL);
	sim_run(&s, 300 * MS, got);
	for (k = 0; k < 3; k++) {
		EXPECT_TRUE(s.in[k].run);
		EXPECT_GE(pct(got[k], 300 * MS), 33.0);
		EXPECT_LE(pct(got[k], 300 * MS), 33.7);
	}
}

TEST(sched_online_holds_offline_at_once)
{
	static const u32 core[] = { 50, 50 };
	static const enum qgpu_class cls[] = { QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE };
	enum qgpu_policy p;
	struct sim s;
	u64 got[MAXI];
	unsigned int k;

	for (p = 0; p < QGPU_POLICIES; p++) {
		sim_init(&s, p, 2, core, cls);
		s.busy[0] = false;
		sim_run(&s, 100 * MS, got);
		EXPECT_GT(got[1], 0);
		EXPECT_TRUE(s.in[1].run || p == QGPU_POLICY_FIXED_SHARE);
		/* fixed-share: wait until offline owns a window while online still has budget */
		for (k = 0; k < 1000 && p == QGPU_POLICY_FIXED_SHARE; k++) {
			if (s.in[1].run && s.in[0].budget_ns > 0)
				break;
			sim_run(&s, 100000, NULL);
		}
		EXPECT_TRUE(s.in[1].run);
		/* online work arrives: the very next decision holds offline */
		qgpu_sc_ring(&s.sc, &s.in[0]);
		qgpu_sc_account(&s.sc, s.v, 2, s.now);
		qgpu_sc_decide(&s.sc, s.v, 2, s.now);
		EXPECT_FALSE(s.in[1].run);
		EXPECT_TRUE(s.in[0].run);
		s.busy[0] = true;
		sim_run(&s, 100 * MS, NULL);
		sim_run(&s, 500 * MS, got);
		if (p == QGPU_POLICY_FIXED_SHARE) {
			/* online may use only its 50 %: the other half is offline's */
			EXPECT_GE(pct(got[0], 500 * MS), 49.5);
			EXPECT_LE(pct(got[0], 500 * MS), 50.5);
			EXPECT_GE(pct(got[1], 500 * MS), 49.5);
			EXPECT_LE(pct(got[1], 500 * MS), 50.5);
		} else {
			EXPECT_EQ(got[1], 0);
		}
		EXPECT_GT(s.in[1].throttled_ns, 0);
	}
}

/* The demo's policy: online 50 % and 30 %, offline 20 %, all busy. */
TEST(sched_fixed_share_offline_gets_what_online_may_not_use)
{
	static const u32 core[] = { 50, 30, 20 };
	static const enum qgpu_class cls[] = {
		QGPU_CLASS_ONLINE, QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE
	};
	struct sim s;
	u64 got[MAXI], total = 1000 * MS;
	unsigned int k;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 3, core, cls);
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, total, got);
	for (k = 0; k < 3; k++) {
		EXPECT_GE(pct(got[k], total), core[k] - 0.5);
		EXPECT_LE(pct(got[k], total), core[k] + 0.5);
	}
	/* an offline instance never runs while an online one with work may */
	EXPECT_TRUE(!s.in[2].run || (s.in[0].budget_ns <= 0 && s.in[1].budget_ns <= 0));
}

TEST(sched_fixed_share_offline_stays_within_its_share)
{
	static const u32 core[] = { 30, 20 };
	static const enum qgpu_class cls[] = { QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE };
	struct sim s;
	u64 got[MAXI], total = 1000 * MS;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, cls);
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, total, got);
	EXPECT_GE(pct(got[0], total), 29.5);
	EXPECT_LE(pct(got[0], total), 30.5);
	EXPECT_GE(pct(got[1], total), 19.5);
	EXPECT_LE(pct(got[1], total), 20.5);
}

TEST(sched_burst_share_offline_gets_only_what_online_leaves)
{
	static const u32 core[] = { 30, 20 };
	static const enum qgpu_class cls[] = { QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE };
	struct sim s;
	u64 got[MAXI], total = 1000 * MS;

	/* online bursts into everything while it has work */
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 2, core, cls);
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, total, got);
	EXPECT_GE(pct(got[0], total), 99.0);
	EXPECT_EQ(got[1], 0);
	/* online idle: offline gets it all */
	s.busy[0] = false;
	sim_run(&s, 200 * MS, NULL);
	sim_run(&s, total, got);
	EXPECT_EQ(got[0], 0);
	EXPECT_GE(pct(got[1], total), 99.0);
}

TEST(sched_held_work_stays_active)
{
	static const u32 core[] = { 50, 50 };
	static const enum qgpu_class cls[] = { QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE };
	struct sim s;

	sim_init(&s, QGPU_POLICY_BEST_EFFORT, 2, core, cls);
	sim_run(&s, 2000 * MS, NULL);
	/* never ran, never rang again: still active, since it could not drain its work */
	EXPECT_TRUE(qgpu_sc_active(&s.in[1]));
}

TEST(sched_share_over_last_second)
{
	static const u32 core[] = { 25, 75 };
	struct sim s;
	u32 a, b;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	sim_run(&s, 2500 * MS, NULL);
	a = qgpu_sc_share_permille(&s.sc, &s.in[0], s.now);
	b = qgpu_sc_share_permille(&s.sc, &s.in[1], s.now);
	EXPECT_GE(a, 240);
	EXPECT_LE(a, 260);
	EXPECT_GE(b, 740);
	EXPECT_LE(b, 760);
	EXPECT_GE(qgpu_sc_util_permille(&s.sc, s.now), 980);
	/* everyone goes idle: after a second and a half the shares are gone */
	s.busy[0] = s.busy[1] = false;
	sim_run(&s, 1500 * MS, NULL);
	EXPECT_EQ(qgpu_sc_share_permille(&s.sc, &s.in[0], s.now), 0);
	EXPECT_EQ(qgpu_sc_util_permille(&s.sc, s.now), 0);
}

TEST(sched_forget_drops_the_owner)
{
	static const u32 core[] = { 50, 50 };
	struct sim s;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	sim_run(&s, 3 * MS, NULL);
	ASSERT_NOT_NULL(s.sc.owner);
	qgpu_sc_forget(&s.sc, s.sc.owner);
	EXPECT_NULL(s.sc.owner);
	EXPECT_NULL(s.sc.cursor);
}

TEST(sched_round_robin_goes_on_across_late_periods)
{
	static const u32 core[] = { 20, 20, 20, 20, 20 };
	struct sim s;
	u64 start[MAXI];
	unsigned int k, p;

	/* every decision comes 3 ms late: windows overrun, periods end before all had a turn */
	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 5, core, NULL);
	for (k = 0; k < 5; k++)
		start[k] = 0;
	for (p = 0; p < 2000; p++) {
		u64 next;

		for (k = 0; k < 5; k++)
			qgpu_sc_ring(&s.sc, &s.in[k]);
		qgpu_sc_account(&s.sc, s.v, 5, s.now);
		next = qgpu_sc_decide(&s.sc, s.v, 5, s.now);
		s.now = (next > s.now ? next : s.now) + 3 * MS;
	}
	qgpu_sc_account(&s.sc, s.v, 5, s.now);
	for (k = 0; k < 5; k++)
		start[k] = s.in[k].gpu_time_ns;
	for (k = 1; k < 5; k++) {
		EXPECT_GE(start[k] * 10, start[0] * 9);
		EXPECT_LE(start[k] * 10, start[0] * 11);
	}
}

TEST(sched_long_windows_are_cut_for_a_waking_instance)
{
	static const u32 core[] = { 86, 2, 2, 2, 2, 2, 2, 2 };
	struct sim s;
	u64 got[MAXI], t0, worst = 0;
	unsigned int k, w;

	/* 8 instances: a 16 ms period, instance 0's budget is 13.8 ms of it */
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 8, core, NULL);
	for (k = 1; k < 8; k++)
		s.busy[k] = false;
	sim_run(&s, 500 * MS, got);
	EXPECT_GE(pct(got[0], 500 * MS), 99.0);
	for (w = 0; w < 20; w++) {
		/* wake instance 1 at an odd moment; it runs within a window's length */
		sim_run(&s, 7 * MS + w * 1100000ull, NULL);
		s.busy[1] = true;
		t0 = s.now;
		while (!s.in[1].run && s.now - t0 < 30 * MS)
			sim_run(&s, 100000, NULL);
		if (s.now - t0 > worst)
			worst = s.now - t0;
		s.busy[1] = false;
		s.in[1].active_ns = 0;	/* idle from here: no window of its own */
		sim_run(&s, 200 * MS, NULL);
	}
	EXPECT_LE(worst, 10 * MS + 100000);
	/* and the shares still hold with everyone busy */
	for (k = 1; k < 8; k++)
		s.busy[k] = true;
	sim_run(&s, 100 * MS, NULL);
	sim_run(&s, 1000 * MS, got);
	EXPECT_GE(pct(got[0], 1000 * MS), 85.5);
	EXPECT_LE(pct(got[0], 1000 * MS), 86.5);
	for (k = 1; k < 8; k++) {
		EXPECT_GE(pct(got[k], 1000 * MS), 1.5);
		EXPECT_LE(pct(got[k], 1000 * MS), 2.5);
	}
}

/* One decision at the current time, as the scheduler thread takes it; returns when the next is. */
static u64 sim_decide(struct sim *s)
{
	qgpu_sc_account(&s->sc, s->v, s->n, s->now);
	return qgpu_sc_decide(&s->sc, s->v, s->n, s->now);
}

TEST(sched_burst_share_relaxes_when_the_round_robin_meets_every_guarantee)
{
	u32 core[MAXI];
	struct sim s;
	u64 got[MAXI];
	unsigned int k;

	/* 64 instances of 1 %, all busy: the round robin's 1/64 each is enough */
	for (k = 0; k < 64; k++)
		core[k] = 1;
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 64, core, NULL);
	sim_run(&s, 200 * MS, got);
	EXPECT_TRUE(s.sc.relaxed);
	EXPECT_NULL(s.sc.owner);
	EXPECT_EQ_INT(s.sc.rr_groups, 64);
	for (k = 0; k < 64; k++)
		EXPECT_TRUE(s.in[k].run);
	/* nothing to switch: the next look is the relaxed one, not a window's end */
	EXPECT_EQ(sim_decide(&s), s.now + QGPU_SC_RELAXED_NS);
	/* a ring of a busy instance, or of one whose one turn is enough, calls for nothing */
	EXPECT_FALSE(qgpu_sc_ring(&s.sc, &s.in[5]));
	s.in[5].groups_work = 0;
	EXPECT_FALSE(qgpu_sc_ring(&s.sc, &s.in[5]));

	/* one of 37 % and 63 of 1 %: 1/64 is not 37 %, so windows, and the shares hold */
	core[0] = 37;
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 64, core, NULL);
	sim_run(&s, 200 * MS, NULL);
	EXPECT_FALSE(s.sc.relaxed);
	sim_run(&s, 1280 * MS, got);
	EXPECT_GE(pct(got[0], 1280 * MS), 36.5);
	for (k = 1; k < 64; k++)
		EXPECT_GE(pct(got[k], 1280 * MS), 0.9);
}

TEST(sched_burst_share_joint_window_for_those_the_round_robin_serves)
{
	u32 core[MAXI];
	struct sim s;
	u64 got[MAXI], t, decisions = 0, changes = 0;
	bool was[MAXI];
	unsigned int k;

	/* one of 37 % and 63 of 1 %, all busy: only the big one needs windows of its own */
	for (k = 0; k < 64; k++)
		core[k] = k ? 1 : 37;
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 64, core, NULL);
	sim_run(&s, 256 * MS, NULL);
	for (k = 0; k < 64; k++)
		was[k] = s.in[k].run;
	for (t = 0; t < 1280 * MS;) {
		u64 next;

		for (k = 0; k < 64; k++)
			qgpu_sc_ring(&s.sc, &s.in[k]);
		next = sim_decide(&s);
		decisions++;
		EXPECT_TRUE(!s.sc.owner || s.sc.owner == &s.in[0]);
		for (k = 0; k < 64; k++) {
			changes += s.in[k].run != was[k];
			was[k] = s.in[k].run;
		}
		t += next - s.now;
		s.now = next;
	}
	/* ten periods: the big one's windows (up to 10 ms each), a joint window, one hold */
	EXPECT_LE(decisions, 10 * 8);
	/* each small instance goes off and on once a period, the big one twice */
	EXPECT_LE(changes, 10 * 2 * 64 + 10);
	sim_run(&s, 1280 * MS, got);
	EXPECT_GE(pct(got[0], 1280 * MS), 36.5);
	EXPECT_LE(pct(got[0], 1280 * MS), 37.5);
	for (k = 1; k < 64; k++) {
		EXPECT_GE(pct(got[k], 1280 * MS), 0.95);
		EXPECT_LE(pct(got[k], 1280 * MS), 1.05);
	}
}

/*
 * The calls a run of decisions costs: a decision that takes any instance off costs one disable
 * call, one that lets any run costs one enable call (qgpu_sched.c batches each direction across
 * instances). @drift_ns: at each decision every instance pays up to that much more, at random, as
 * when a sample finds a busy group without work for a moment: the budgets drift apart.
 */
static u64 sim_calls(struct sim *s, u64 ns, u64 drift_ns, u64 *decisions)
{
	u64 end = s->now + ns, calls = 0, seed = 1;
	bool was[MAXI];
	unsigned int k;

	for (k = 0; k < s->n; k++)
		was[k] = s->in[k].run;
	while (s->now < end) {
		bool on = false, off = false;
		u64 next;

		for (k = 0; k < s->n; k++)
			qgpu_sc_ring(&s->sc, &s->in[k]);
		next = sim_decide(s);
		(*decisions)++;
		for (k = 0; k < s->n; k++) {
			on |= s->in[k].run && !was[k];
			off |= !s->in[k].run && was[k];
			was[k] = s->in[k].run;
		}
		calls += on + off;
		for (k = 0; k < s->n && drift_ns; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			s->in[k].budget_ns -= (s64)((seed >> 33) % drift_ns);
		}
		s->now = next;
	}
	return calls;
}

/*
 * Every switch costs a call of about a millisecond on a real GPU, spun on a CPU. In the skewed
 * case the big instance's window and the small ones' joint window alternate, and the period
 * boundary keeps what runs (A B | B A): one switch, two calls, a period, even when the small
 * instances' budgets drift apart (their joint window ends for all of them at once). The big
 * one's window is its budget, not cut into windows of period_us, as nobody wakes to wait for it.
 */
TEST(sched_burst_share_skewed_switches_once_a_period)
{
	u32 core[MAXI];
	struct sim s;
	u64 got[MAXI], calls, period, decisions;
	unsigned int k, j;

	for (k = 0; k < 64; k++)
		core[k] = k ? 1 : 37;
	for (j = 0; j < 2; j++) {
		sim_init(&s, QGPU_POLICY_BURST_SHARE, 64, core, NULL);
		sim_run(&s, 512 * MS, NULL);
		period = s.sc.period_ns;
		decisions = 0;
		calls = sim_calls(&s, 20 * period, j ? 10000 : 0, &decisions);
		printf("# drift %s: %llu calls, %llu decisions in 20 periods\n",
		       j ? "10 us" : "none", (unsigned long long)calls,
		       (unsigned long long)decisions);
		EXPECT_LE(calls, 2 * 20 + 2);
		EXPECT_LE(decisions, 3 * 20);
		sim_run(&s, 10 * period, got);
		EXPECT_GE(pct(got[0], 10 * period), 36.5);
		for (k = 1; k < 64; k++)
			EXPECT_GE(pct(got[k], 10 * period), 0.95);
	}
}

/*
 * Under burst-share a window lasts its owner's budget, not period_us: 37 % and 36 % among 27 of
 * 1 % (a 58 ms period) own windows of 21 ms each, one decision each, where windows of 10 ms took
 * three each; a wake still cuts a window to period_us (sched_long_windows_are_cut_for_a_waking_
 * instance).
 */
TEST(sched_burst_share_windows_last_their_budget)
{
	u32 core[MAXI];
	struct sim s;
	u64 got[MAXI], decisions = 0, calls;
	unsigned int k;

	for (k = 0; k < 29; k++)
		core[k] = k > 1 ? 1 : 37 - k;
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 29, core, NULL);
	sim_run(&s, 580 * MS, NULL);
	EXPECT_EQ(s.sc.period_ns, 58 * MS);
	calls = sim_calls(&s, 20 * s.sc.period_ns, 0, &decisions);
	printf("# %llu calls, %llu decisions in 20 periods\n", (unsigned long long)calls,
	       (unsigned long long)decisions);
	EXPECT_LE(decisions, 4 * 20);
	EXPECT_LE(calls, 4 * 20);
	sim_run(&s, 10 * s.sc.period_ns, got);
	for (k = 0; k < 29; k++) {
		EXPECT_GE(pct(got[k], 580 * MS), core[k] - 0.05);
		EXPECT_LE(pct(got[k], 580 * MS), core[k] + 0.5);
	}
}

TEST(sched_burst_share_stops_relaxing_at_once)
{
	static const u32 core[] = { 50, 50 };
	struct sim s;

	/* two of 50 %, one group each: 1/2 each is enough */
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 2, core, NULL);
	sim_run(&s, 50 * MS, NULL);
	EXPECT_TRUE(s.sc.relaxed);
	/* instance 0 gets a second busy group: 1/3 is not enough for instance 1 */
	s.in[0].groups_rr = 2;
	s.in[0].groups_work = 2;
	sim_decide(&s);
	EXPECT_FALSE(s.sc.relaxed);
	EXPECT_NOT_NULL(s.sc.owner);
	EXPECT_TRUE(s.in[0].run != s.in[1].run);
	/* it goes: relaxed again at the next decision */
	s.in[0].groups_rr = 1;
	s.in[0].groups_work = 1;
	sim_decide(&s);
	EXPECT_TRUE(s.sc.relaxed);
	EXPECT_TRUE(s.in[0].run && s.in[1].run);
	/* a timeslice of a tenant's own: the turns are not equal, so no relaxing */
	s.in[1].rr_unequal = true;
	sim_decide(&s);
	EXPECT_FALSE(s.sc.relaxed);
	s.in[1].rr_unequal = false;
	/* a knob: instance 1 now needs 60 % (sum 110 is not admitted, but the core need not know) */
	s.in[1].core = 60;
	sim_decide(&s);
	EXPECT_FALSE(s.sc.relaxed);
}

TEST(sched_burst_share_counts_idle_groups_on_the_runlist)
{
	static const u32 core[] = { 70, 10, 10, 10 };
	struct sim s;
	unsigned int k;

	/* only instance 0 is busy, but the idle ones' groups may take turns any time */
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 4, core, NULL);
	for (k = 1; k < 4; k++)
		s.busy[k] = false;
	sim_run(&s, 50 * MS, NULL);
	EXPECT_FALSE(s.sc.relaxed);
	/* groups read from tenant memory cannot shrink the count: it is qgpu's runlist count */
	s.in[1].groups_work = 0;
	EXPECT_FALSE(s.sc.relaxed);
	/* idle instances without groups take no turns */
	for (k = 1; k < 4; k++)
		s.in[k].groups_rr = 0;
	sim_run(&s, 50 * MS, NULL);
	EXPECT_TRUE(s.sc.relaxed);
	/* one of them wakes: its one turn of 2 is not its 10 %... it is: 50 >= 10 */
	s.in[1].groups_rr = 1;
	s.busy[1] = true;
	sim_run(&s, 50 * MS, NULL);
	EXPECT_FALSE(s.sc.relaxed);	/* but instance 0's 1/2 is not 70 % */
}

TEST(sched_relaxed_ring_of_an_instance_without_work)
{
	static const u32 core[] = { 40, 30, 30 };
	struct sim s;

	/* instance 0 idle but active, its group on the runlist: 1/3 is not 40 % */
	sim_init(&s, QGPU_POLICY_BURST_SHARE, 3, core, NULL);
	s.busy[0] = false;
	s.in[0].groups_rr = 0;
	sim_run(&s, 20 * MS, NULL);
	EXPECT_TRUE(s.sc.relaxed);
	EXPECT_EQ_INT(s.sc.rr_groups, 2);
	qgpu_sc_ring(&s.sc, &s.in[0]);
	/* active, no work seen: its ring matters, since 1 turn of 2 is not its 40 %... */
	EXPECT_FALSE(qgpu_sc_ring(&s.sc, &s.in[0]));	/* 40 * 2 <= 100: it is */
	s.in[1].groups_rr = 2;
	sim_decide(&s);
	EXPECT_TRUE(s.sc.relaxed);
	EXPECT_EQ_INT(s.sc.rr_groups, 3);
	EXPECT_TRUE(qgpu_sc_ring(&s.sc, &s.in[0]));	/* 40 * 3 > 100 */
	/* best-effort guarantees nothing: only a wake matters */
	s.sc.policy = QGPU_POLICY_BEST_EFFORT;
	sim_decide(&s);
	EXPECT_TRUE(s.sc.relaxed);
	EXPECT_FALSE(qgpu_sc_ring(&s.sc, &s.in[0]));
	s.in[0].active_ns = 0;
	EXPECT_TRUE(qgpu_sc_ring(&s.sc, &s.in[0]));
}

TEST(sched_not_relaxed_while_a_class_is_held)
{
	static const u32 core[] = { 30, 30, 40 };
	static const enum qgpu_class cls[] = {
		QGPU_CLASS_ONLINE, QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE
	};
	struct sim s;

	sim_init(&s, QGPU_POLICY_BURST_SHARE, 3, core, cls);
	sim_run(&s, 50 * MS, NULL);
	/* online busy: offline held, and decisions stay on time (no relaxing) */
	EXPECT_FALSE(s.sc.relaxed);
	EXPECT_FALSE(s.in[2].run);
	/* online goes idle: offline runs */
	s.busy[0] = s.busy[1] = false;
	s.in[0].groups_work = s.in[1].groups_work = 0;
	s.in[0].active_ns = s.in[1].active_ns = 0;
	sim_decide(&s);
	EXPECT_TRUE(s.in[2].run);
	/* best-effort: the same class rule, not relaxed while it holds */
	s.sc.policy = QGPU_POLICY_BEST_EFFORT;
	qgpu_sc_ring(&s.sc, &s.in[0]);
	sim_decide(&s);
	EXPECT_FALSE(s.in[2].run);
	EXPECT_FALSE(s.sc.relaxed);
}

/*
 * An instance's ring ran out (the engine ran its work slower than it was allowed) while its
 * kernels still wait: a sample that sees them queued makes it active again, so that holding it
 * is throttling, and it wakes for the joint window.
 */
TEST(sched_work_seen_queued_is_activity)
{
	static const u32 core[] = { 50, 50 };
	static const enum qgpu_class cls[] = { QGPU_CLASS_ONLINE, QGPU_CLASS_OFFLINE };
	struct sim s;
	u64 throttled;

	sim_init(&s, QGPU_POLICY_BEST_EFFORT, 2, core, cls);
	s.busy[0] = false;
	sim_run(&s, 10 * MS, NULL);
	EXPECT_TRUE(s.in[1].run);
	/* no ring for longer than its activity lasts: idle as far as rings tell */
	s.busy[1] = false;
	sim_run(&s, 60 * MS, NULL);
	EXPECT_FALSE(qgpu_sc_active(&s.in[1]));
	qgpu_sc_queued(&s.in[1]);
	EXPECT_TRUE(qgpu_sc_active(&s.in[1]));
	EXPECT_TRUE(s.in[1].woke);
	/* online work arrives: the offline instance is held with work, which is throttled time */
	qgpu_sc_ring(&s.sc, &s.in[0]);
	sim_decide(&s);
	EXPECT_FALSE(s.in[1].run);
	throttled = s.in[1].throttled_ns;
	s.now += 5 * MS;
	qgpu_sc_account(&s.sc, s.v, s.n, s.now);
	EXPECT_EQ(s.in[1].throttled_ns - throttled, 5 * MS);
	/* a refill while active only tops it up: not a wake */
	s.in[1].woke = false;
	qgpu_sc_queued(&s.in[1]);
	EXPECT_FALSE(s.in[1].woke);
	EXPECT_EQ(s.in[1].active_ns, (s64)QGPU_SC_ACTIVE_NS);
}

/*
 * Controls inert: a simulated engine that round-robins every instance with queued work, held or
 * not. An instance that may run keeps 50 ms queued (as nvsim-load does); a held one only drains.
 * The scheduler sees which instances had work (groups_busy), as qgpu_sched.c estimates it from
 * USERD, every 2 ms at the latest. Returns each instance's engine time over @ns through @got.
 */
static void sim_run_inert(struct sim *s, u64 ns, u64 *got, u64 *queue)
{
	u64 end = s->now + ns, next, left, each;
	unsigned int k, busy;

	for (k = 0; k < s->n; k++)
		got[k] = 0;
	while (s->now < end) {
		for (k = 0; k < s->n; k++) {
			if (s->in[k].run && s->busy[k]) {
				queue[k] = 50 * MS;
				qgpu_sc_ring(&s->sc, &s->in[k]);
			}
		}
		next = qgpu_sc_decide(&s->sc, s->v, s->n, s->now);
		if (next > s->now + MS)
			next = s->now + MS;
		if (next > end)
			next = end;
		for (k = 0; k < s->n; k++) {
			s->in[k].groups_busy = !!queue[k];
			s->in[k].groups_part = 0;
		}
		/* processor sharing: a queue that runs dry leaves its turns to the others */
		for (left = next - s->now; left; left -= each * busy) {
			busy = 0;
			each = left;
			for (k = 0; k < s->n; k++) {
				if (!queue[k])
					continue;
				busy++;
				each = queue[k] < each ? queue[k] : each;
			}
			if (!busy)
				break;
			if (each * busy > left)
				each = left / busy;
			if (!each)
				break;
			for (k = 0; k < s->n; k++) {
				if (!queue[k])
					continue;
				got[k] += each;
				queue[k] -= each;
				s->in[k].groups_part = !queue[k];
			}
		}
		s->now = next;
		qgpu_sc_account(&s->sc, s->v, s->n, s->now);
	}
}

static void check_fixed_inert(const u32 *core, unsigned int n)
{
	u64 got[MAXI], queue[MAXI] = { 0 }, total = 4000 * MS;
	struct sim s;
	unsigned int k;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, n, core, NULL);
	s.sc.inert = true;
	sim_run_inert(&s, 1000 * MS, got, queue);
	sim_run_inert(&s, total, got, queue);
	for (k = 0; k < n; k++) {
		EXPECT_GE(pct(got[k], total), core[k] - 2.0);
		EXPECT_LE(pct(got[k], total), core[k] + 2.0);
	}
}

TEST(sched_fixed_share_with_inert_controls_charges_queued_work)
{
	static const u32 a[] = { 30, 70 }, b[] = { 10, 90 }, c[] = { 20, 20, 20, 20, 20 };

	check_fixed_inert(a, 2);
	check_fixed_inert(b, 2);
	check_fixed_inert(c, 5);
}

TEST(sched_inert_estimate_charges_half_a_sample_to_a_queue_that_ran_dry)
{
	static const u32 core[] = { 50, 50 };
	struct sim s;

	/* 4 ms: instance 0 busy throughout, instance 1's queue ran dry within it */
	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	s.sc.inert = true;
	qgpu_sc_account(&s.sc, s.v, 2, s.now);
	s.in[0].groups_busy = 1;
	s.in[1].groups_busy = 1;
	s.in[1].groups_part = 1;
	qgpu_sc_account(&s.sc, s.v, 2, s.now + 4 * MS);
	/* busy half the sample beside the other: 1 ms; the other got the rest */
	EXPECT_EQ(s.in[1].gpu_time_ns, 1 * MS);
	EXPECT_EQ(s.in[0].gpu_time_ns, 3 * MS);
}

TEST(sched_inert_controls_carry_debt_and_busy_credit)
{
	static const u32 core[] = { 30, 70 };
	struct sim s;

	sim_init(&s, QGPU_POLICY_FIXED_SHARE, 2, core, NULL);
	s.sc.inert = true;
	qgpu_sc_account(&s.sc, s.v, 2, s.now);
	qgpu_sc_decide(&s.sc, s.v, 2, s.now);
	EXPECT_NULL(s.sc.owner);
	EXPECT_TRUE(s.in[0].run);
	EXPECT_TRUE(s.in[1].run);
	/* 100 ms of the engine to instance 0 alone: 97 ms over its 3 ms, carried whole */
	s.in[0].groups_busy = 1;
	s.in[1].groups_busy = 0;
	qgpu_sc_account(&s.sc, s.v, 2, s.now + 100 * MS);
	s.now += 100 * MS;
	qgpu_sc_decide(&s.sc, s.v, 2, s.now);
	EXPECT_EQ(s.in[0].budget_ns, (s64)(3 * MS) - (s64)(97 * MS));	/* new period: +3 */
	EXPECT_FALSE(s.in[0].run);
	/* instance 1 was idle: its unused budget is gone; busy, it would have kept it */
	EXPECT_EQ(s.in[1].budget_ns, (s64)(7 * MS + QGPU_SC_MIN_WINDOW_NS));
	s.in[1].groups_busy = 1;
	s.in[0].groups_busy = 0;
	s.in[1].budget_ns = 50 * MS;
	s.now = s.sc.period_end;
	qgpu_sc_decide(&s.sc, s.v, 2, s.now);
	EXPECT_EQ(s.in[1].budget_ns, (s64)(57 * MS));
}

/* qgpu_sc_issue_split(): a fake RM that refuses any list holding a bad entry */
struct split_run {
	const bool *bad;
	unsigned int taken[64];
	unsigned int tried_alone[64];
};

static bool split_issue(void *ctx, unsigned int lo, unsigned int len)
{
	struct split_run *r = ctx;
	unsigned int k;

	for (k = lo; k < lo + len; k++)
		if (r->bad[k]) {
			if (len == 1)
				r->tried_alone[k]++;
			return false;
		}
	for (k = lo; k < lo + len; k++)
		r->taken[k]++;
	return true;
}

/* Every good entry is taken exactly once, every bad one tried once alone; returns the calls. */
static unsigned int split_check(unsigned int n, const bool *bad)
{
	struct split_run r = { .bad = bad };
	unsigned int calls = qgpu_sc_issue_split(n, split_issue, &r), k, wrong = 0;

	for (k = 0; k < n; k++)
		wrong += r.taken[k] != (bad[k] ? 0u : 1u) || r.tried_alone[k] != (bad[k] ? 1u : 0u);
	TAP_CASE("a list of %u: %u calls", n, calls);
	EXPECT_EQ(wrong, 0u);
	return calls;
}

TEST(issue_split_sends_what_rm_takes_once_and_isolates_what_it_refuses)
{
	bool bad[64] = { false };
	unsigned int k;

	EXPECT_EQ(split_check(64, bad), 1u);		/* nothing refused: one call */
	bad[37] = true;
	EXPECT_EQ(split_check(64, bad), 13u);		/* one refused: 1 + 2 per halving */
	bad[0] = bad[63] = true;
	EXPECT_LE(split_check(64, bad), 1u + 2u * 3u * 6u);
	for (k = 0; k < 8; k++)
		bad[k] = true;
	EXPECT_EQ(split_check(8, bad), 15u);		/* all refused: 2n - 1, every one alone */
	EXPECT_EQ(split_check(1, bad), 1u);
	EXPECT_EQ(split_check(0, bad), 0u);
	bad[0] = false;
	EXPECT_EQ(split_check(3, bad), 5u);		/* [0 1 2] -> [0] ok, [1 2] -> [1], [2] */
}
