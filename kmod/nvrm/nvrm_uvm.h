/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvidia-uvm ioctl ABI facts that nvsim simulates, in our own words. The ioctl numbers and the
 * sizes qgpu needs are in nvrm_abi.h section 11; this adds the parameter layouts and behaviour.
 *
 * Sources (NVIDIA open-gpu-kernel-modules, checked at 525.60.13, 535.104.05 and 580.95.05):
 *   kernel-open/nvidia-uvm/uvm.c          uvm_ioctl(), uvm_api_initialize(),
 *                                         uvm_api_mm_initialize(), uvm_mmap(), uvm_release()
 *   kernel-open/nvidia-uvm/uvm_api.h      __UVM_ROUTE_CMD_STACK / _ALLOC
 *   kernel-open/nvidia-uvm/uvm_ioctl.h    parameter structs
 *   kernel-open/nvidia-uvm/uvm_linux_ioctl.h  UVM_INITIALIZE / UVM_DEINITIALIZE
 *   kernel-open/nvidia-uvm/uvm_types.h    UVM_INIT_FLAGS_*
 *   kernel-open/nvidia-uvm/uvm_test.c     uvm_test_ioctl() (unknown commands)
 *   kernel-open/nvidia-uvm/uvm_gpu.c, uvm_va_space.c, src/nvidia/src/kernel/rmapi/nv_gpu_ops.c
 *                                         UVM_REGISTER_GPU / UVM_UNREGISTER_GPU statuses
 *   kernel-open/nvidia-uvm/uvm_user_channel.c  UVM_(UN)REGISTER_CHANNEL (580.142, 590.44.01)
 *
 * Dispatch (uvm_ioctl, same 525-595):
 * - The command is a plain number (UVM_IOCTL_BASE(i) is i on Linux); nothing in it says a size.
 *   Each known command copies exactly sizeof(its params) from the user pointer; a failed copy in
 *   or out is -EFAULT. There is no "wrong size": a caller's shorter buffer is simply read past.
 * - rmStatus carries the result and the ioctl returns 0 (the params are copied back).
 * - UVM_DEINITIALIZE returns 0 and does nothing.
 * - Every command except UVM_INITIALIZE and UVM_MM_INITIALIZE first checks the file is an
 *   initialised VA-space file; if not, rmStatus = NV_ERR_ILLEGAL_ACTION (not an errno).
 * - An unknown command goes on to uvm_test_ioctl(), which without the module parameter
 *   uvm_enable_builtin_tests returns -EINVAL up to 565.x and, from 570.86.15, minus errno 38
 *   ("Function not implemented" on Linux, asm-generic/errno.h).
 *
 * A file's type (uvm_fd_type.h): UNINITIALIZED after open; VA_SPACE after UVM_INITIALIZE; MM after
 * UVM_MM_INITIALIZE on it (535+). mmap of a file that is not a VA-space file is -EBADFD.
 */
#ifndef NVRM_UVM_H
#define NVRM_UVM_H

#include "nvrm_abi.h"

#define NVRM_UVM_UNREGISTER_GPU			38u
#define NVRM_UVM_UUID_LEN			16u	/* NvProcessorUuid: 16 raw bytes */

/* UVM_INIT_FLAGS_* (uvm_types.h, 525-595); any other bit: NV_ERR_INVALID_ARGUMENT */
#define NVRM_UVM_INIT_FLAGS_DISABLE_HMM		0x1ull
#define NVRM_UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE 0x2ull
#define NVRM_UVM_INIT_FLAGS_MASK		0x3ull

/* Status codes UVM returns that RM proper does not use elsewhere in nvrm_abi.h */
#define NVRM_ERR_GPU_UUID_NOT_FOUND		0x00000012u
#define NVRM_ERR_PAGE_TABLE_NOT_AVAIL		0x0000005Du
#define NVRM_WARN_NOTHING_TO_DO			0x00010006u

/* First driver major with UVM_MM_INITIALIZE (absent in 525.x and 530.x, present from 535.43.02) */
#define NVRM_UVM_MM_INITIALIZE_SINCE		535u
/* First driver major whose unknown UVM commands are -NVRM_UVM_ERRNO_UNKNOWN_CMD, not -EINVAL */
#define NVRM_UVM_UNKNOWN_CMD_ERRNO_SINCE	570u
#define NVRM_UVM_ERRNO_UNKNOWN_CMD		38	/* "Function not implemented" */

/*
 * UVM_INITIALIZE_PARAMS, 16 B. On an UNINITIALIZED file: flags checked against the mask, the file
 * becomes a VA space (recording current->mm unless MULTI_PROCESS_SHARING_MODE). On a VA-space file:
 * NV_OK if flags equal the first call's, else NV_ERR_INVALID_ARGUMENT. On an MM file:
 * NV_ERR_INVALID_ARGUMENT.
 */
struct nvrm_uvm_initialize {
	u64 flags;		/* @0 */
	u32 rm_status;		/* @8 */
	u8 _pad0[4];
};

/*
 * UVM_MM_INITIALIZE_PARAMS, 8 B (535+), issued on a second, fresh nvidia-uvm file. Checks, in
 * order: uvmFd fget-able with the UVM f_op, else NV_ERR_INVALID_ARGUMENT; that file a VA space,
 * else NV_ERR_INVALID_ARGUMENT; its VA space associated with an mm (not
 * MULTI_PROCESS_SHARING_MODE), else NV_WARN_NOTHING_TO_DO; this file UNINITIALIZED, else
 * NV_ERR_IN_USE; the VA space's mm not already claimed by an MM file (NV_ERR_INVALID_STATE), not
 * released by a closed MM file and still alive (NV_ERR_PAGE_TABLE_NOT_AVAIL). On success this file
 * keeps a reference to uvmFd's file until it is released.
 */
struct nvrm_uvm_mm_initialize {
	s32 uvm_fd;		/* @0 */
	u32 rm_status;		/* @4 */
};

/*
 * UVM_REGISTER_GPU_PARAMS, 40 B (525-595). The GPU is named by its raw 16-byte UUID (the SHA1-type
 * binary form of "GPU-xxxxxxxx-..."). Statuses: no such GPU NV_ERR_GPU_UUID_NOT_FOUND; no
 * /dev/nvidiaN of it open in the caller (nvGpuOpsGetGpuInfo -> osIsGpuAccessible)
 * NV_ERR_INSUFFICIENT_PERMISSIONS; already registered in this VA space NV_ERR_INVALID_DEVICE. On
 * success gpu_uuid is rewritten (to the GPU instance's UUID, the same one without MIG); a GPU
 * without NUMA memory reports numaEnabled 0 and numaNodeId -1. rmCtrlFd is not used (reference
 * section 1.4).
 */
struct nvrm_uvm_register_gpu {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	u8 numa_enabled;		/* @16, NvBool */
	u8 _pad0[3];
	s32 numa_node_id;		/* @20 */
	s32 rm_ctrl_fd;			/* @24 */
	u32 hclient;			/* @28 */
	u32 hsmc_part_ref;		/* @32 */
	u32 rm_status;			/* @36 */
};

/* UVM_UNREGISTER_GPU_PARAMS, 20 B (525-595): a GPU not registered is NV_ERR_INVALID_DEVICE. */
struct nvrm_uvm_unregister_gpu {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	u32 rm_status;			/* @16 */
};

/* UVM_PAGEABLE_MEM_ACCESS_PARAMS, 8 B (525-595): whether the VA space has ATS or HMM. */
struct nvrm_uvm_pageable_mem_access {
	u8 pageable_mem_access;	/* @0, NvBool */
	u8 _pad0[3];
	u32 rm_status;		/* @4 */
};

NVRM_ASSERT_SIZE(struct nvrm_uvm_initialize, NVRM_UVM_INITIALIZE_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_uvm_mm_initialize, NVRM_UVM_MM_INITIALIZE_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_uvm_register_gpu, NVRM_UVM_REGISTER_GPU_SIZE);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_gpu, rm_ctrl_fd,
		   NVRM_UVM_REGISTER_GPU_RM_CTRL_FD_OFFSET);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_gpu, hclient, NVRM_UVM_REGISTER_GPU_HCLIENT_OFFSET);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_gpu, rm_status, 36);
NVRM_ASSERT_SIZE(struct nvrm_uvm_unregister_gpu, 20);
NVRM_ASSERT_SIZE(struct nvrm_uvm_pageable_mem_access, 8);

/*
 * External ranges and mappings (uvm_ioctl.h, uvm_map_external.c, uvm_va_range.c, uvm_va_space.c,
 * 525-595.45.04). What UVM_MAP_EXTERNAL_ALLOCATION maps it duplicates into UVM's own RM client
 * (nvUvmInterfaceDupMemory, with NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE: RM's default
 * share policy then lets only the process that owns the source client through, client_resource.c
 * RS_SHARE_TYPE_PID with a kernel destination). The duplicate, and with it the memory, lives
 * until no part of the mapping is left: UVM_UNMAP_EXTERNAL of all of it (a partial unmap splits
 * the mapping, both parts sharing the duplicate), UVM_FREE of the range, a later mapping over
 * it, the GPU's VA space or registration going, or the VA-space file's release.
 */
#define NVRM_UVM_UNREGISTER_GPU_VASPACE		26u
#define NVRM_UVM_UNMAP_EXTERNAL			66u

/*
 * Two more commands have UVM allocate page tables for a span the caller names, and take
 * UVM_UNMAP_EXTERNAL_PARAMS's layout (base, length, gpuUuid, rmStatus; uvm_ioctl.h, the same in
 * 525.147.05-595.45.04; struct nvrm_uvm_unmap_external):
 *
 * UVM_MAP_EXTERNAL_SPARSE (uvm_map_external_sparse(), uvm_map_external.c): a sparse mapping of a
 * span of an external range, with 64 KiB pages. Checks, in order: base and length 64 KiB-aligned,
 * non-zero, not wrapping, and in one external range (NV_ERR_INVALID_ADDRESS); the GPU registered
 * with a GPU VA space (NV_ERR_INVALID_DEVICE; so too a GPU without sparse mappings, Maxwell, until
 * 595). What the span mapped before is unmapped first, as for UVM_MAP_EXTERNAL_ALLOCATION, and
 * the sparse mapping is a mapping like the others: unmapped, split, mapped over and freed the
 * same ways, holding no memory.
 *
 * UVM_MAP_DYNAMIC_PARALLELISM_REGION (uvm_map_sked_reflected_range(), uvm_va_range.c): a range of
 * its own, one GPU page. Checks, in order: base and length 4 KiB-aligned, non-zero, not wrapping
 * (NV_ERR_INVALID_ADDRESS); the GPU registered with a GPU VA space (NV_ERR_INVALID_DEVICE); the
 * length a page size the GPU has (4K, 64K, 2M, 512M from Ampere) and the base aligned to it
 * (NV_ERR_INVALID_ADDRESS); the span free of every other range (NV_ERR_UVM_ADDRESS_IN_USE). The
 * range lives until UVM_FREE of it or the VA space's end (the GPU VA space's going clears its
 * entry and leaves the range).
 */
#define NVRM_UVM_MAP_DYNAMIC_PARALLELISM_REGION	65u
#define NVRM_UVM_MAP_EXTERNAL_SPARSE		74u
#define NVRM_UVM_SPARSE_PAGE_SIZE		0x10000ull	/* UVM_PAGE_SIZE_64K */
#define NVRM_ERR_UVM_ADDRESS_IN_USE		0x00000068u	/* nvstatuscodes.h */

/*
 * UVM_REGISTER_GPU_VASPACE_PARAMS, 32 B: the GPU must be registered and have no GPU VA space yet
 * (else NV_ERR_INVALID_DEVICE); hVaSpace is a FERMI_VASPACE_A of hClient, duplicated by UVM as
 * above.
 */
struct nvrm_uvm_register_gpu_vaspace {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	s32 rm_ctrl_fd;			/* @16, unused */
	u32 hclient;			/* @20 */
	u32 hva_space;			/* @24 */
	u32 rm_status;			/* @28 */
};

/*
 * UVM_REGISTER_CHANNEL_PARAMS, 56 B (uvm_ioctl.h, 525-595): UVM retains hChannel of hClient
 * (nvUvmInterfaceRetainChannel) if its VA space is the one registered for the GPU; no share
 * policy applies (docs/design/client-handles.md). rmCtrlFd is not used.
 *
 * What the retention holds (nvGpuOpsRetainChannel(), nv_gpu_ops.c; uvm_user_channel.c; 580.142,
 * the same in 535.43.02 and 595.45.04): UVM's kernel client duplicates the channel's group, and a
 * UVM_CHANNEL_RETAINER under that copy keeps the channel's id and its instance block. RM never
 * tells UVM of the tenant's free, so the group (its context buffers and pools) and the channel's
 * id and block stay until UVM lets go: UVM_UNREGISTER_CHANNEL of the same (hClient, hChannel),
 * the GPU VA space's or the GPU's unregistration, or the VA space's end.
 *
 * Checks, in uvm_register_channel()'s order: the GPU registered with a GPU VA space
 * (NV_ERR_INVALID_DEVICE); RM's: the client (NV_ERR_INVALID_CLIENT), a channel under it
 * (NV_ERR_INVALID_OBJECT_HANDLE), its VA space the one registered (NV_ERR_INVALID_CHANNEL, or
 * NV_ERR_OTHER_DEVICE_FOUND for another GPU's); then, for a channel with context buffers to map
 * (not a copy engine's), base and length page-aligned, non-zero, not wrapping
 * (NV_ERR_INVALID_ADDRESS); the pair not registered already (NV_ERR_INVALID_CHANNEL, though the
 * handles may name another channel by now); base + length - 1 below the GPU's max_channel_va
 * (NV_ERR_OUT_OF_RANGE; 2^40 to Ada, 2^57 from Hopper, uvm_hopper.c). A failure lets go of
 * what was retained.
 */
#define NVRM_UVM_REGISTER_CHANNEL		27u
#define NVRM_UVM_MAX_CHANNEL_VA_HOPPER		0x0200000000000000ull	/* 2^57 */
#define NVRM_ERR_OTHER_DEVICE_FOUND		0x0000005Au	/* nvstatuscodes.h */
struct nvrm_uvm_register_channel {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	s32 rm_ctrl_fd;			/* @16, unused */
	u32 hclient;			/* @20 */
	u32 hchannel;			/* @24 */
	u32 _pad0;
	u64 base;			/* @32 */
	u64 length;			/* @40 */
	u32 rm_status;			/* @48 */
	u32 _pad1;
};

/*
 * UVM_UNREGISTER_CHANNEL_PARAMS (uvm_ioctl.h): through 580.x, 28 B, the GPU's UUID (never read:
 * uvm_unregister_channel() looks the pair up on every GPU), hClient @16, hChannel @20, rmStatus
 * @24; from 590.44.01, 12 B without the UUID. A pair UVM has not registered (or no longer has):
 * NV_ERR_INVALID_CHANNEL.
 */
#define NVRM_UVM_UNREGISTER_CHANNEL		28u
#define NVRM_UVM_UNREGISTER_CHANNEL_NO_UUID_SINCE	590u
struct nvrm_uvm_unregister_channel_v525 {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	u32 hclient;			/* @16 */
	u32 hchannel;			/* @20 */
	u32 rm_status;			/* @24 */
};

struct nvrm_uvm_unregister_channel_v590 {
	u32 hclient;			/* @0 */
	u32 hchannel;			/* @4 */
	u32 rm_status;			/* @8 */
};

/* The size of UVM_UNREGISTER_CHANNEL_PARAMS for driver branch @major: the pair, then rmStatus. */
static inline u32 nvrm_uvm_unregister_channel_size(u32 major)
{
	return major >= NVRM_UVM_UNREGISTER_CHANNEL_NO_UUID_SINCE ?
	       sizeof(struct nvrm_uvm_unregister_channel_v590) :
	       sizeof(struct nvrm_uvm_unregister_channel_v525);
}

/* UVM_UNREGISTER_GPU_VASPACE_PARAMS, 20 B: no GPU VA space of that GPU: NV_ERR_INVALID_DEVICE. */
struct nvrm_uvm_unregister_gpu_vaspace {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	u32 rm_status;			/* @16 */
};

/*
 * UVM_CREATE_EXTERNAL_RANGE_PARAMS, 24 B: base and length 4 KiB aligned, non-zero, not wrapping
 * (uvm_api_range_invalid_4k, else NV_ERR_INVALID_ADDRESS); overlapping another range:
 * NV_ERR_UVM_ADDRESS_IN_USE.
 */
struct nvrm_uvm_create_external_range {
	u64 base;		/* @0 */
	u64 length;		/* @8 */
	u32 rm_status;		/* @16 */
	u8 _pad0[4];
};

/* UvmGpuMappingAttributes, 36 B: the GPU, then five enums nvsim checks no further. */
struct nvrm_uvm_gpu_mapping_attributes {
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @0 */
	u32 mapping_type;		/* @16 */
	u32 caching_type;		/* @20 */
	u32 format_type;		/* @24 */
	u32 element_bits;		/* @28 */
	u32 compression_type;		/* @32 */
};

/*
 * UVM_MAP_EXTERNAL_ALLOCATION_PARAMS: base@0, length@8, offset@16, perGpuAttributes@24 (one per
 * UVM_MAX_GPUS: 32 up to 550.40.07, 1200 B in all; 256 from 550.40.53, 9264 B), then
 * gpuAttributesCount (u64), rmCtrlFd, hClient, hMemory, rmStatus. Checks in uvm_map_external.c's
 * order: base/length as for a range (NV_ERR_INVALID_ADDRESS); count 0 or over UVM_MAX_GPUS
 * (NV_ERR_INVALID_ARGUMENT); [base, base + length) inside one external range
 * (NV_ERR_INVALID_ADDRESS); then per GPU: registered with a GPU VA space (NV_ERR_INVALID_DEVICE),
 * what it mapped in the span unmapped, the memory duplicated (RM's status), offset + length within
 * it (NV_ERR_INVALID_OFFSET). A failure tears down what this call mapped.
 */
#define NVRM_UVM_MAP_EXT_GPUS_V525		32u
#define NVRM_UVM_MAP_EXT_GPUS_V550		256u
#define NVRM_UVM_MAP_EXT_ATTRS_OFFSET		24u
/* The tail after the per-GPU table: gpuAttributesCount, rmCtrlFd, hClient, hMemory, rmStatus. */
struct nvrm_uvm_map_external_tail {
	u64 gpu_attributes_count;	/* @0 */
	s32 rm_ctrl_fd;			/* @8, unused */
	u32 hclient;			/* @12 */
	u32 hmemory;			/* @16 */
	u32 rm_status;			/* @20 */
};

/* UVM_UNMAP_EXTERNAL_PARAMS, 40 B: the span inside one external range; the GPU registered. */
struct nvrm_uvm_unmap_external {
	u64 base;			/* @0 */
	u64 length;			/* @8 */
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @16 */
	u32 rm_status;			/* @32 */
	u8 _pad0[4];
};

/*
 * UVM_ALLOC_DEVICE_P2P_PARAMS, 56 B (uvm_va_range_device_p2p.c; 565.57.01 on): a range of the
 * GPU's memory for peer DMA (GPUDirect Storage's kernel path), which duplicates hMemory as MAP
 * does and holds it until UVM_FREE of the range or the GPU's unregistration. Checks: base, offset
 * and length page-aligned, non-zero, not wrapping (NV_ERR_INVALID_ARGUMENT); the GPU registered
 * (NV_ERR_INVALID_DEVICE); P2PDMA set up for it (NV_ERR_NOT_SUPPORTED, what most hosts answer);
 * the memory duplicated; offset + length within it (NV_ERR_INVALID_ARGUMENT); the range free
 * (NV_ERR_UVM_ADDRESS_IN_USE).
 */
#define NVRM_UVM_ALLOC_DEVICE_P2P		78u
#define NVRM_UVM_ALLOC_DEVICE_P2P_SINCE		565u
struct nvrm_uvm_alloc_device_p2p {
	u64 base;			/* @0 */
	u64 length;			/* @8 */
	u64 offset;			/* @16 */
	u8 gpu_uuid[NVRM_UVM_UUID_LEN];	/* @24 */
	s32 rm_ctrl_fd;			/* @40, unused */
	u32 hclient;			/* @44 */
	u32 hmemory;			/* @48 */
	u32 rm_status;			/* @52 */
};

/*
 * UVM_FREE_PARAMS (uvm_ioctl.h). Through 580.x, 24 B with the range's length: uvm_free() refuses a
 * base or length that is not 4 KiB-aligned, zero or wrapping, and any span but a whole range's,
 * with NV_ERR_INVALID_ADDRESS (uvm_map_external.c to 550, uvm_va_range.c 560-580.142). From
 * 590.44.01, 16 B: the base alone, which must start a range (NV_ERR_INVALID_ADDRESS otherwise).
 */
#define NVRM_UVM_FREE_BASE_ONLY_SINCE	590u
struct nvrm_uvm_free_v525 {
	u64 base;		/* @0 */
	u64 length;		/* @8 */
	u32 rm_status;		/* @16 */
	u8 _pad0[4];
};

struct nvrm_uvm_free_v590 {
	u64 base;		/* @0 */
	u32 rm_status;		/* @8 */
	u8 _pad0[4];
};

/* The size of UVM_FREE_PARAMS for driver branch @major; rmStatus is its last word but one. */
static inline u32 nvrm_uvm_free_size(u32 major)
{
	return major >= NVRM_UVM_FREE_BASE_ONLY_SINCE ? sizeof(struct nvrm_uvm_free_v590) :
	       sizeof(struct nvrm_uvm_free_v525);
}

/* Where the tail of UVM_MAP_EXTERNAL_ALLOCATION_PARAMS sits for a table of @gpus entries. */
#define NVRM_UVM_MAP_EXT_TAIL_OFFSET(gpus) \
	(NVRM_UVM_MAP_EXT_ATTRS_OFFSET + (gpus) * sizeof(struct nvrm_uvm_gpu_mapping_attributes))

NVRM_ASSERT_SIZE(struct nvrm_uvm_register_gpu_vaspace, NVRM_UVM_REGISTER_GPU_VASPACE_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_uvm_unregister_gpu_vaspace, 20);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_gpu_vaspace, hclient, 20);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_gpu_vaspace, rm_status, 28);
NVRM_ASSERT_SIZE(struct nvrm_uvm_register_channel, 56);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_channel, hclient, 20);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_channel, base, 32);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_register_channel, rm_status, 48);
NVRM_ASSERT_SIZE(struct nvrm_uvm_unregister_channel_v525, 28);
NVRM_ASSERT_SIZE(struct nvrm_uvm_unregister_channel_v590, 12);
NVRM_ASSERT_SIZE(struct nvrm_uvm_create_external_range, NVRM_UVM_CREATE_EXTERNAL_RANGE_SIZE);
NVRM_ASSERT_SIZE(struct nvrm_uvm_gpu_mapping_attributes, 36);
NVRM_ASSERT_SIZE(struct nvrm_uvm_map_external_tail, 24);
NVRM_ASSERT_SIZE(struct nvrm_uvm_unmap_external, 40);
NVRM_ASSERT_SIZE(struct nvrm_uvm_free_v525, 24);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_free_v525, rm_status, 16);
NVRM_ASSERT_SIZE(struct nvrm_uvm_free_v590, 16);
NVRM_ASSERT_SIZE(struct nvrm_uvm_alloc_device_p2p, 56);
NVRM_ASSERT_OFFSET(struct nvrm_uvm_alloc_device_p2p, rm_status, 52);
/* The tail's fields land where nvrm_abi.h's facts put them in both layouts. */
static_assert(NVRM_UVM_MAP_EXT_TAIL_OFFSET(NVRM_UVM_MAP_EXT_GPUS_V550) + 24 ==
	      NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V550, "550.40.53+ layout");
static_assert(NVRM_UVM_MAP_EXT_TAIL_OFFSET(NVRM_UVM_MAP_EXT_GPUS_V550) + 8 ==
	      NVRM_UVM_MAP_EXTERNAL_ALLOCATION_RM_CTRL_FD_OFFSET_V550, "rmCtrlFd");
static_assert(NVRM_UVM_MAP_EXT_TAIL_OFFSET(NVRM_UVM_MAP_EXT_GPUS_V525) + 24 ==
	      NVRM_UVM_MAP_EXTERNAL_ALLOCATION_SIZE_V525, "525 layout");

#endif /* NVRM_UVM_H */
