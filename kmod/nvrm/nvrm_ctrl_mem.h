/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts of the NVIDIA RM controls that describe an existing object: what class and parent a
 * handle has, where a memory object lives and how big it is. A limiter asks these of RM to learn
 * what RM actually created, instead of trusting what the caller asked for.
 *
 * Sources (open-gpu-kernel-modules, checked at 525.60.13, 535.104.05, 550.40.07, 570.86.15,
 * 580.95.05 and 595.45.04; identical unless noted):
 *   src/common/sdk/nvidia/inc/ctrl/ctrl0000/ctrl0000client.h
 *   src/common/sdk/nvidia/inc/ctrl/ctrl0041.h
 *   src/nvidia/src/kernel/rmapi/client_resource.c (cliresCtrlCmdClientGet*_IMPL)
 *   src/nvidia/src/kernel/gpu/mem_mgr/mem_ctrl.c (memCtrlCmdGetSurfaceInfoLvm_IMPL)
 */
#ifndef QGPU_NVRM_CTRL_MEM_H
#define QGPU_NVRM_CTRL_MEM_H

#include "nvrm_types.h"

/* NV0000 (root client): issued on the client, about one of its handles. */
#define NVRM_CTRL_CMD_NV0000_CLIENT_GET_ADDR_SPACE_TYPE	0x00000D01u
#define NVRM_CTRL_CMD_NV0000_CLIENT_GET_HANDLE_INFO	0x00000D02u

/* NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS, 12 B */
struct nvrm_client_get_addr_space_type {
	u32 hobject;		/* @0 IN */
	u32 map_flags;		/* @4 IN */
	u32 addr_space_type;	/* @8 OUT */
};

#define NVRM_ADDR_SPACE_TYPE_INVALID	0u
#define NVRM_ADDR_SPACE_TYPE_SYSMEM	1u
#define NVRM_ADDR_SPACE_TYPE_VIDMEM	2u
#define NVRM_ADDR_SPACE_TYPE_REGMEM	3u
#define NVRM_ADDR_SPACE_TYPE_FABRIC	4u
#define NVRM_ADDR_SPACE_TYPE_FABRIC_MC	5u	/* 580.65.06-595 */

/* NV0000_CTRL_CLIENT_GET_HANDLE_INFO_PARAMS, 16 B (data is a union of NvHandle and NvU64) */
struct nvrm_client_get_handle_info {
	u32 hobject;		/* @0 IN */
	u32 index;		/* @4 IN */
	u64 data;		/* @8 OUT: hResult in the low 32 bits, or iResult */
};

#define NVRM_HANDLE_INFO_INDEX_PARENT	1u	/* hResult: the parent's handle, 0 for none */
#define NVRM_HANDLE_INFO_INDEX_CLASSID	2u	/* iResult: the external class id */

/* NV0041 (memory objects: 0x40, 0x3E, ...). The list sits behind a user pointer. */
#define NVRM_CTRL_CMD_NV0041_GET_SURFACE_INFO	0x00410110u

/* NV0041_CTRL_GET_SURFACE_INFO_PARAMS, 16 B */
struct nvrm_get_surface_info {
	u32 surface_info_list_size;	/* @0 */
	u32 _pad0;
	u64 surface_info_list;		/* @8 NvP64 to struct nvrm_surface_info[] */
};

/* NV0041_CTRL_SURFACE_INFO (NVXXXX_CTRL_XXX_INFO), 8 B */
struct nvrm_surface_info {
	u32 index;
	u32 data;
};

#define NVRM_SURFACE_INFO_INDEX_ATTRS		1u
#define NVRM_SURFACE_INFO_INDEX_PHYS_SIZE_LO	2u	/* 580-595: low 32 bits of the bytes */
#define NVRM_SURFACE_INFO_INDEX_PHYS_SIZE_HI	3u	/* 580-595: high 32 bits */
#define NVRM_SURFACE_INFO_INDEX_COMPR_COVERAGE	5u
#define NVRM_SURFACE_INFO_INDEX_PHYS_SIZE	7u	/* 4 KiB units; OUT_OF_RANGE past 32 bits */
#define NVRM_SURFACE_INFO_INDEX_PHYS_ATTR	8u
#define NVRM_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE	9u	/* NVRM_ADDR_SPACE_TYPE_* */
#define NVRM_SURFACE_INFO_PHYS_SIZE_SCALE	0x1000u

NVRM_ASSERT_SIZE(struct nvrm_client_get_addr_space_type, 12);
NVRM_ASSERT_SIZE(struct nvrm_client_get_handle_info, 16);
NVRM_ASSERT_SIZE(struct nvrm_get_surface_info, 16);
NVRM_ASSERT_OFFSET(struct nvrm_get_surface_info, surface_info_list, 8);
NVRM_ASSERT_SIZE(struct nvrm_surface_info, 8);

#endif /* QGPU_NVRM_CTRL_MEM_H */
