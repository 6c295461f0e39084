/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where RM parameters name RM clients other than the caller's: pure decode (nvrm_clients.c).
 */
#ifndef NVRM_CLIENTS_H
#define NVRM_CLIENTS_H

#include "nvrm/nvrm_types.h"

/* The most client handles one control or allocation names (QUERY_CHANNEL_UNIQUE_ID). */
#define NVRM_CLIENTS_MAX	128u

/**
 * struct nvrm_client_fields - where a parameter struct names clients
 * @size: the struct's size; RM refuses any other (INVALID_PARAM_STRUCT / it copies this many)
 * @since: the driver branch from which @size holds, or 0 for every branch
 * @size_before: the size before @since (the handles stay where they are)
 * @off: the first (or only) client handle
 * @stride: bytes between handles of a list
 * @count_off: where the list's length is, or NVRM_CLIENTS_ONE for a single handle
 * @max: the list's capacity; a larger length names only the first @max (RM refuses it anyway)
 * @off2: a second single handle, or NVRM_CLIENTS_NONE
 */
struct nvrm_client_fields {
	u32 size;
	u32 since;
	u32 size_before;
	u32 off;
	u32 stride;
	u32 count_off;
	u32 max;
	u32 off2;
};

#define NVRM_CLIENTS_ONE	0xFFFFFFFFu
#define NVRM_CLIENTS_NONE	0xFFFFFFFFu

const struct nvrm_client_fields *nvrm_control_client_fields(u32 cmd);
u32 nvrm_clients_size(const struct nvrm_client_fields *f, u32 major);
const struct nvrm_client_fields *nvrm_alloc_client_fields(u32 hclass);
bool nvrm_control_refused_for_tenants(u32 cmd);
u32 nvrm_clients_span(const struct nvrm_client_fields *f);
u32 nvrm_clients_named(const struct nvrm_client_fields *f, const void *params,
		       u32 out[NVRM_CLIENTS_MAX]);

#endif /* NVRM_CLIENTS_H */
