// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/qgpu_create_parse.c: the `create` knob's grammar and the instance name rules. One case per
 * way a line can be wrong, one field changed per case.
 */
#include "tap.h"
#include "qgpu_create_parse.h"

static int parse(const char *s, struct qgpu_create_req *req)
{
	return qgpu_create_parse(s, strlen(s), req);
}

TEST(create_name_only_gets_defaults)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("a\n", &req), 0);
	EXPECT_STREQ(req.name, "a");
	EXPECT_EQ(req.mem, 0);
	EXPECT_EQ(req.core, 100);
	EXPECT_EQ(req.cls, QGPU_CLASS_ONLINE);
	EXPECT_EQ(req.refuse_managed, false);
	EXPECT_EQ(req.refuse_dmabuf, true);
	EXPECT_EQ(req.channels, 0);
}

TEST(create_managed_key)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("m managed=refuse mem=1G", &req), 0);
	EXPECT_EQ(req.refuse_managed, true);
	EXPECT_EQ(req.mem, 1ULL << 30);
	ASSERT_EQ_INT(parse("m core=5 managed=allow", &req), 0);
	EXPECT_EQ(req.refuse_managed, false);
}

TEST(create_dmabuf_key)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("d dmabuf=allow managed=refuse", &req), 0);
	EXPECT_EQ(req.refuse_dmabuf, false);
	EXPECT_EQ(req.refuse_managed, true);
	ASSERT_EQ_INT(parse("d dmabuf=refuse", &req), 0);
	EXPECT_EQ(req.refuse_dmabuf, true);
	EXPECT_EQ(req.refuse_managed, false);
}

TEST(create_channels_key)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("c channels=48 mem=1G", &req), 0);
	EXPECT_EQ(req.channels, 48);
	EXPECT_EQ(req.mem, 1ULL << 30);
	ASSERT_EQ_INT(parse("c channels=max", &req), 0);
	EXPECT_EQ(req.channels, 0);
	ASSERT_EQ_INT(parse("c channels=1", &req), 0);
	EXPECT_EQ(req.channels, 1);
	ASSERT_EQ_INT(parse("c channels=65536", &req), 0);
	EXPECT_EQ(req.channels, QGPU_CHANNELS_LIMIT);
}

/* What the channels_max knob takes: the create value, or one with a trailing newline. */
TEST(channels_values)
{
	static const char *const bad[] = {
		"", "0", "65537", "99999", "123456", "-1", "+4", "4k", "MAX", "max ", " 4", "0x10",
	};
	size_t i;
	u32 v;

	ASSERT_EQ_INT(qgpu_parse_channels("24\n", 3, &v), 0);
	EXPECT_EQ(v, 24);
	ASSERT_EQ_INT(qgpu_parse_channels("max\n", 4, &v), 0);
	EXPECT_EQ(v, 0);
	ASSERT_EQ_INT(qgpu_parse_channels("00024", 5, &v), 0);
	EXPECT_EQ(v, 24);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_CASE("\"%s\"", bad[i]);
		v = 7;
		EXPECT_EQ_INT(qgpu_parse_channels(bad[i], strlen(bad[i]), &v), -EINVAL);
		EXPECT_EQ(v, 7);
	}
	TAP_CASE("two newlines");
	EXPECT_EQ_INT(qgpu_parse_channels("4\n\n", 3, &v), -EINVAL);
}

TEST(create_all_options_any_order)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("train-1 class=offline core=30 mem=4G", &req), 0);
	EXPECT_STREQ(req.name, "train-1");
	EXPECT_EQ(req.mem, 4ULL << 30);
	EXPECT_EQ(req.core, 30);
	EXPECT_EQ(req.cls, QGPU_CLASS_OFFLINE);

	ASSERT_EQ_INT(parse("\tb.2  mem=512m\tcore=100 class=online\n", &req), 0);
	EXPECT_STREQ(req.name, "b.2");
	EXPECT_EQ(req.mem, 512ULL << 20);
	EXPECT_EQ(req.core, 100);
	EXPECT_EQ(req.cls, QGPU_CLASS_ONLINE);

	ASSERT_EQ_INT(parse("c mem=max core=1", &req), 0);
	EXPECT_EQ(req.mem, 0);
	EXPECT_EQ(req.core, 1);
}

TEST(create_name_rules)
{
	static const char *const good[] = {
		"a", "0", "a_b", "a.b", "a-b", "0123456789abcdefghijklmnopqrstuv",
	};
	static const char *const bad[] = {
		"", "A", "-a", ".a", "_a", "a/b", "a b", "a!", "ä",
		"0123456789abcdefghijklmnopqrstuvw",	/* 33 characters */
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		TAP_CASE("good \"%s\"", good[i]);
		EXPECT_TRUE(qgpu_name_valid(good[i], strlen(good[i])));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_CASE("bad \"%s\"", bad[i]);
		EXPECT_FALSE(qgpu_name_valid(bad[i], strlen(bad[i])));
	}
}

TEST(create_rejects_bad_lines)
{
	static const char *const bad[] = {
		"",
		"\n",
		"   ",
		"A",
		"a\n\n",
		"a mem",
		"a mem=",
		"a =4G",
		"a mem=4X",
		"a mem=4GB",
		"a mem=-1",
		"a mem=0",
		"a mem=0G",
		"a mem=1.5G",
		"a mem=99999999999999999999",
		"a mem=17179869184T",
		"a mem=4G mem=4G",
		"a core=0",
		"a core=101",
		"a core=-5",
		"a core=50%",
		"a core=0100",
		"a core=1 core=2",
		"a class=onlien",
		"a class=",
		"a class=ONLINE",
		"a class=online class=offline",
		"a managed=deny",
		"a managed=",
		"a managed=REFUSE",
		"a managed=refuse managed=refuse",
		"a dmabuf=yes",
		"a dmabuf=",
		"a dmabuf=allow dmabuf=refuse",
		"a DMABUF=allow",
		"a channels=0",
		"a channels=",
		"a channels=65537",
		"a channels=unlimited",
		"a channels=8 channels=8",
		"a gpu=0",
		"a Mem=4G",
		"a b",
	};
	struct qgpu_create_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_CASE("\"%s\"", bad[i]);
		EXPECT_EQ_INT(parse(bad[i], &req), -EINVAL);
	}
	TAP_CASE("embedded NUL");
	EXPECT_EQ_INT(qgpu_create_parse("a\0mem=4G", 8, &req), -EINVAL);
	TAP_CASE("NULL");
	EXPECT_EQ_INT(qgpu_create_parse(NULL, 0, &req), -EINVAL);
}

TEST(create_sizes)
{
	static const struct {
		const char *s;
		unsigned long long v;
	} rows[] = {
		{ "1", 1 },
		{ "4096", 4096 },
		{ "1k", 1024 },
		{ "1K", 1024 },
		{ "3M", 3ULL << 20 },
		{ "16G", 16ULL << 30 },
		{ "2T", 2ULL << 40 },
		{ "16777215T", 16777215ULL << 40 },
		{ "18446744073709551615", 18446744073709551615ULL },
	};
	u64 v;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		TAP_CASE("\"%s\"", rows[i].s);
		EXPECT_EQ_INT(qgpu_parse_size(rows[i].s, strlen(rows[i].s), &v), 0);
		EXPECT_EQ(v, rows[i].v);
	}
	TAP_CASE("18446744073709551616");
	EXPECT_EQ_INT(qgpu_parse_size("18446744073709551616", 20, &v), -EINVAL);
	TAP_CASE("16777216T");
	EXPECT_EQ_INT(qgpu_parse_size("16777216T", 9, &v), -EINVAL);
	TAP_CASE("class names");
	EXPECT_STREQ(qgpu_class_name(QGPU_CLASS_ONLINE), "online");
	EXPECT_STREQ(qgpu_class_name(QGPU_CLASS_OFFLINE), "offline");
}

TEST(create_rm_objects_key)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("c mem=1G", &req), 0);
	EXPECT_EQ(req.rm_objects, 0);
	ASSERT_EQ_INT(parse("c rm_objects=4096 channels=48", &req), 0);
	EXPECT_EQ(req.rm_objects, 4096);
	EXPECT_EQ(req.channels, 48);
	ASSERT_EQ_INT(parse("c rm_objects=max", &req), 0);
	EXPECT_EQ(req.rm_objects, 0);
	ASSERT_EQ_INT(parse("c rm_objects=16777216", &req), 0);
	EXPECT_EQ(req.rm_objects, QGPU_RM_OBJECTS_LIMIT);
	EXPECT_EQ_INT(parse("c rm_objects=16777217", &req), -EINVAL);
	EXPECT_EQ_INT(parse("c rm_objects=0", &req), -EINVAL);
	EXPECT_EQ_INT(parse("c rm_objects=1 rm_objects=2", &req), -EINVAL);
}

TEST(create_sysmem_key)
{
	struct qgpu_create_req req;

	ASSERT_EQ_INT(parse("c mem=1G", &req), 0);
	EXPECT_EQ(req.sysmem, 0);
	ASSERT_EQ_INT(parse("c sysmem=2G mem=1G", &req), 0);
	EXPECT_EQ(req.sysmem, 2ULL << 30);
	EXPECT_EQ(req.mem, 1ULL << 30);
	ASSERT_EQ_INT(parse("c sysmem=max", &req), 0);
	EXPECT_EQ(req.sysmem, 0);
	EXPECT_EQ_INT(parse("c sysmem=0", &req), -EINVAL);
	EXPECT_EQ_INT(parse("c sysmem=4X", &req), -EINVAL);
	EXPECT_EQ_INT(parse("c sysmem=1M sysmem=2M", &req), -EINVAL);
}

/* What the rm_objects_max knob takes: the create value, or one with a trailing newline. */
TEST(rm_objects_values)
{
	static const char *const bad[] = {
		"", "0", "16777217", "99999999", "123456789", "-1", "+4", "4k", "MAX", " 4", "0x10",
	};
	size_t i;
	u32 v;

	ASSERT_EQ_INT(qgpu_parse_rm_objects("4096\n", 5, &v), 0);
	EXPECT_EQ(v, 4096);
	ASSERT_EQ_INT(qgpu_parse_rm_objects("max\n", 4, &v), 0);
	EXPECT_EQ(v, 0);
	ASSERT_EQ_INT(qgpu_parse_rm_objects("16777216", 8, &v), 0);
	EXPECT_EQ(v, QGPU_RM_OBJECTS_LIMIT);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_CASE("\"%s\"", bad[i]);
		v = 7;
		EXPECT_EQ_INT(qgpu_parse_rm_objects(bad[i], strlen(bad[i]), &v), -EINVAL);
		EXPECT_EQ(v, 7);
	}
}

/* mapped=: a size in whole 2 MiB regions, at creation and in the mapped_max knob. */
TEST(create_mapped_key_and_values)
{
	static const char *const bad[] = {
		"", "0", "1M", "3M", "2049K", "1025T", "-2M", "2X", "MAX", " 2M", "4096",
	};
	struct qgpu_create_req req;
	size_t i;
	u32 v;

	ASSERT_EQ_INT(parse("c mem=1G", &req), 0);
	EXPECT_EQ(req.mapped, 0);
	ASSERT_EQ_INT(parse("c mapped=64G mem=1G", &req), 0);
	EXPECT_EQ(req.mapped, 32768);
	ASSERT_EQ_INT(parse("c mapped=max", &req), 0);
	EXPECT_EQ(req.mapped, 0);
	EXPECT_EQ_INT(parse("c mapped=1M", &req), -EINVAL);
	EXPECT_EQ_INT(parse("c mapped=2M mapped=4M", &req), -EINVAL);
	ASSERT_EQ_INT(qgpu_parse_mapped("2M\n", 3, &v), 0);
	EXPECT_EQ(v, 1);
	ASSERT_EQ_INT(qgpu_parse_mapped("2048K", 5, &v), 0);
	EXPECT_EQ(v, 1);
	ASSERT_EQ_INT(qgpu_parse_mapped("512T", 4, &v), 0);
	EXPECT_EQ(v, QGPU_MAPPED_UNITS_LIMIT);
	ASSERT_EQ_INT(qgpu_parse_mapped("max\n", 4, &v), 0);
	EXPECT_EQ(v, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_CASE("\"%s\"", bad[i]);
		v = 7;
		EXPECT_EQ_INT(qgpu_parse_mapped(bad[i], strlen(bad[i]), &v), -EINVAL);
		EXPECT_EQ(v, 7);
	}
	EXPECT_STREQ(QGPU_CREATE_KEYS,
		     "mem core class managed dmabuf channels rm_objects sysmem mapped");
}
