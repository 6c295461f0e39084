// SPDX-License-Identifier: GPL-2.0
/*
 * nvrm_clients.c: where controls and allocations name RM clients besides the caller's.
 */
#include <string.h>

#include "tap.h"
#include "nvrm/nvrm_abi.h"
#include "nvrm/nvrm_clients.h"

static void put32(unsigned char *p, unsigned int off, u32 v)
{
	memcpy(p + off, &v, sizeof(v));
}

TEST(clients_an_event_names_its_parent_client)
{
	const struct nvrm_client_fields *f = nvrm_alloc_client_fields(NVRM_CLASS_NV01_EVENT_OS_EVENT);
	unsigned char p[24] = { 0 };
	u32 out[NVRM_CLIENTS_MAX];

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(f->size, sizeof(struct nvrm_nv0005_alloc_params));
	EXPECT_EQ(nvrm_clients_named(f, p, out), 0u);	/* 0: the caller's own */
	put32(p, 0, 0xC1D00042u);
	put32(p, 4, 0x5C000001u);			/* hSrcResource: an object, not a client */
	ASSERT_EQ(nvrm_clients_named(f, p, out), 1u);
	EXPECT_EQ(out[0], 0xC1D00042u);
}

TEST(clients_a_device_names_its_share_and_target_clients)
{
	const struct nvrm_client_fields *f = nvrm_alloc_client_fields(NVRM_CLASS_NV01_DEVICE_0);
	unsigned char p[56] = { 0 };
	u32 out[NVRM_CLIENTS_MAX];

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(f->size, sizeof(struct nvrm_nv0080_alloc_params));
	put32(p, 0, 7);				/* deviceId */
	EXPECT_EQ(nvrm_clients_named(f, p, out), 0u);
	put32(p, 4, 0xC1D00001u);		/* hClientShare, as CUDA sets it: its own client */
	put32(p, 8, 0xC1D00002u);		/* hTargetClient */
	ASSERT_EQ(nvrm_clients_named(f, p, out), 2u);
	EXPECT_EQ(out[0], 0xC1D00001u);
	EXPECT_EQ(out[1], 0xC1D00002u);
}

TEST(clients_a_list_names_its_first_count_entries_at_most_its_capacity)
{
	const struct nvrm_client_fields *f =
		nvrm_control_client_fields(NVRM_CTRL_CMD_FIFO_QUERY_CHANNEL_UNIQUE_ID);
	static unsigned char p[1540];
	u32 out[NVRM_CLIENTS_MAX];
	unsigned int i;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(f->size, 1540u);
	for (i = 0; i < 128; i++)
		put32(p, 4 * i, 0xC1D00000u + i);
	put32(p, 1024, 2);			/* numChannels */
	ASSERT_EQ(nvrm_clients_named(f, p, out), 2u);
	EXPECT_EQ(out[1], 0xC1D00001u);
	put32(p, 1024, 1000);			/* more than fits: the 128 there are */
	EXPECT_EQ(nvrm_clients_named(f, p, out), 128u);
	EXPECT_EQ(out[127], 0xC1D0007Fu);
	put32(p, 4, 0);				/* 0 names no client */
	EXPECT_EQ(nvrm_clients_named(f, p, out), 127u);
}

TEST(clients_bind_engines_names_one_client_per_pair)
{
	const struct nvrm_client_fields *f =
		nvrm_control_client_fields(NVRM_CTRL_CMD_FIFO_BIND_ENGINES);
	unsigned char p[132] = { 0 };
	u32 out[NVRM_CLIENTS_MAX];

	ASSERT_TRUE(f != NULL);
	put32(p, 0, 2);
	put32(p, 4, 0xC1D00010u);		/* {hClient, hChannel}[0] */
	put32(p, 8, 0x5C000010u);
	put32(p, 12, 0xC1D00011u);		/* {hClient, hChannel}[1] */
	put32(p, 16, 0x5C000011u);
	ASSERT_EQ(nvrm_clients_named(f, p, out), 2u);
	EXPECT_EQ(out[0], 0xC1D00010u);
	EXPECT_EQ(out[1], 0xC1D00011u);
}

TEST(clients_single_fields_sit_where_the_audit_found_them)
{
	static const struct {
		u32 cmd, size, off;
	} rows[] = {
		{ NVRM_CTRL_CMD_FIFO_GET_CHANNEL_GROUP_UNIQUE_ID_INFO, 1552, 0 },
		{ NVRM_CTRL_CMD_GPU_EXEC_REG_OPS, 48, 0 },
		{ NVRM_CTRL_CMD_GPU_MIGRATABLE_OPS, 1832, 0 },
		{ NVRM_CTRL_CMD_GR_CTXSW_ZCULL_MODE, 16, 4 },
		{ NVRM_CTRL_CMD_GR_CTXSW_ZCULL_BIND, 24, 0 },
		{ NVRM_CTRL_CMD_GR_CTXSW_PM_BIND, 40, 0 },
		{ NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, 112, 4 },
		{ NVRM_CTRL_CMD_GR_CTXSW_SETUP_BIND, 16, 0 },
		{ NVRM_CTRL_CMD_NV208F_FIFO_GET_CHANNEL_STATE, 16, 4 },
		{ NVRM_CTRL_CMD_NV503C_REGISTER_PID, 4, 0 },
	};
	static unsigned char p[2048];
	u32 out[NVRM_CLIENTS_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct nvrm_client_fields *f = nvrm_control_client_fields(rows[i].cmd);

		TAP_CASE("0x%08x", rows[i].cmd);
		if (!f) {
			EXPECT_TRUE(f != NULL);
			continue;
		}
		EXPECT_EQ(f->size, rows[i].size);
		memset(p, 0, sizeof(p));
		put32(p, rows[i].off, 0xC1D00099u);
		EXPECT_EQ(nvrm_clients_named(f, p, out), 1u);
		EXPECT_EQ(out[0], 0xC1D00099u);
	}
}

TEST(clients_preemption_bind_grew_in_565)
{
	/* ctrl2080gr.h: vMemPtrs[] of 8 to 560.35.03, of 9 from 565.57.01 */
	const struct nvrm_client_fields *f =
		nvrm_control_client_fields(NVRM_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND);

	EXPECT_TRUE(f != NULL);
	if (!f)
		return;
	EXPECT_EQ(nvrm_clients_size(f, 525), 104u);
	EXPECT_EQ(nvrm_clients_size(f, 560), 104u);
	EXPECT_EQ(nvrm_clients_size(f, 565), 112u);
	EXPECT_EQ(nvrm_clients_size(f, 595), 112u);
	/* the others take one size at every version */
	f = nvrm_control_client_fields(NVRM_CTRL_CMD_GR_CTXSW_PM_BIND);
	EXPECT_EQ(nvrm_clients_size(f, 525), 40u);
	EXPECT_EQ(nvrm_clients_size(f, 595), 40u);
}

TEST(clients_controls_on_the_callers_own_objects_name_none)
{
	/* what CUDA issues (H200 traces): none of these carries another client */
	EXPECT_TRUE(nvrm_control_client_fields(NVRM_CTRL_CMD_FB_GET_INFO_V2) == NULL);
	EXPECT_TRUE(nvrm_control_client_fields(NVRM_CTRL_CMD_NVC36F_GET_WORK_SUBMIT_TOKEN) == NULL);
	/* FIFO_DISABLE_CHANNELS has its own handling (qgpu_disable.c) */
	EXPECT_TRUE(nvrm_control_client_fields(NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS) == NULL);
	EXPECT_TRUE(nvrm_alloc_client_fields(NVRM_CLASS_NV20_SUBDEVICE_0) == NULL);
	EXPECT_TRUE(nvrm_control_refused_for_tenants(NVRM_CTRL_CMD_NV5080_DEFERRED_API));
	EXPECT_TRUE(nvrm_control_refused_for_tenants(NVRM_CTRL_CMD_NV5080_DEFERRED_API_V2));
	EXPECT_FALSE(nvrm_control_refused_for_tenants(NVRM_CTRL_CMD_FB_GET_INFO_V2));
}

TEST(clients_the_span_ends_with_the_last_client_field)
{
	/* what qgpu copies, checks and has RM read from its copy */
	EXPECT_EQ(nvrm_clients_span(nvrm_alloc_client_fields(NVRM_CLASS_NV01_DEVICE_0)), 12u);
	EXPECT_EQ(nvrm_clients_span(nvrm_alloc_client_fields(NVRM_CLASS_NV01_EVENT_OS_EVENT)), 4u);
	EXPECT_EQ(nvrm_clients_span(nvrm_alloc_client_fields(NVRM_CLASS_NV01_MEMORY_FLA)), 52u);
	EXPECT_EQ(nvrm_clients_span(nvrm_control_client_fields(NVRM_CTRL_CMD_GR_CTXSW_PM_BIND)), 4u);
	/* a list: its capacity, and its length after it */
	EXPECT_EQ(nvrm_clients_span(nvrm_control_client_fields(
		NVRM_CTRL_CMD_FIFO_QUERY_CHANNEL_UNIQUE_ID)), 1028u);
	EXPECT_EQ(nvrm_clients_span(nvrm_control_client_fields(
		NVRM_CTRL_CMD_FIFO_DISABLE_CHANNELS_FOR_KEY_ROTATION)), 260u);
	EXPECT_EQ(nvrm_clients_span(nvrm_control_client_fields(NVRM_CTRL_CMD_FIFO_BIND_ENGINES)),
		  128u);
	EXPECT_EQ(nvrm_clients_span(nvrm_control_client_fields(NVRM_CTRL_CMD_NV503C_REGISTER_PID)),
		  4u);
}
