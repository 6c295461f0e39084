/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVIDIA driver's interface for kernel modules, restated under our own names (facts only, not
 * NVIDIA's code): nvidia_get_rm_ops() fills an nvidia_modeset_rm_ops_t whose op() runs RM calls
 * with kernel privilege on an nvidia_kernel_rmapi_ops_t. qgpu calls it on the real driver
 * (symbol_get("nvidia_get_rm_ops")) and on nvsim (symbol_get("nvsim_get_rm_ops")) through one code
 * path, so every layout here is the real one, x86_64.
 *
 * Sources (NVIDIA/open-gpu-kernel-modules, checked at every tag 525.47.04-595.45.04):
 *   kernel-open/common/inc/nv-modeset-interface.h  nvidia_modeset_rm_ops_t, nvidia_get_rm_ops()
 *   kernel-open/nvidia/nv-modeset-interface.c      nvidia_get_rm_ops(): the handshake
 *   src/nvidia/arch/nvalloc/unix/include/nv-kernel-rmapi-ops.h  nvidia_kernel_rmapi_ops_t
 *   src/nvidia/arch/nvalloc/unix/src/osapi.c       rm_kernel_rmapi_op(): the op switch
 *   src/common/sdk/nvidia/inc/nvos.h               the op numbers (NV01_FREE ...)
 *   kernel-open/common/inc/nv-gpu-info.h           nv_gpu_info_t
 *
 * Differences across versions:
 *   - nvidia_kernel_rmapi_ops_t.params.alloc is NVOS21 in 525-570 and NVOS64 in 575-595 (op
 *     NV04_ALLOC runs Nv04AllocKernel resp. Nv04AllocWithAccessKernel). Both are version-sized
 *     (struct nvrm_abi: NVOS21 32 B with status@24 in 525-530, @28 from 535; NVOS64 48 B).
 *   - The union's largest member is NVOS46 (56 B up to 575, 64 B from 580), so the struct is 64 B
 *     in 525-575 and 72 B in 580-595; params always start at 8. Callers allocate the 72 B below.
 *   - open_gpu/close_gpu gained a third argument (NvBool reset_aware) in 595.44.02.
 *   - nvidia_modeset_callbacks_t gained remove/probe in 580.94.06 and 580.105.08+ (not in
 *     580.95.05); nv_gpu_info_t gained needs_numa_setup@12 in 580.94.02 and is_soc_disp@13 in
 *     595.44.02 (session 27's compiled audit of every tag). Neither is used by qgpu.
 *   The handshake itself is unchanged: version_string must equal the driver's NV_VERSION_STRING
 *   exactly (strcmp); otherwise the driver writes its own version_string back and returns
 *   NV_ERR_GENERIC without filling anything else.
 */
#ifndef QGPU_NVRM_KAPI_H
#define QGPU_NVRM_KAPI_H

#include "nvrm_types.h"
#include "nvrm_abi.h"

/* nvos.h op numbers handled by rm_kernel_rmapi_op(), 525-595 */
#define NVRM_KAPI_OP_FREE		0x00u	/* NV01_FREE: NVOS00 */
#define NVRM_KAPI_OP_ALLOC_MEMORY	0x02u	/* NV01_ALLOC_MEMORY: NVOS02 */
#define NVRM_KAPI_OP_ALLOC		0x15u	/* NV04_ALLOC: NVOS21 (525-570), NVOS64 (575+) */
#define NVRM_KAPI_OP_VID_HEAP_CONTROL	0x20u	/* pointer to NVOS32 */
#define NVRM_KAPI_OP_MAP_MEMORY		0x21u	/* NVOS33 */
#define NVRM_KAPI_OP_UNMAP_MEMORY	0x22u	/* NVOS34 */
#define NVRM_KAPI_OP_ALLOC_CONTEXT_DMA	0x27u	/* NVOS39 */
#define NVRM_KAPI_OP_MAP_MEMORY_DMA	0x2Eu	/* NVOS46 */
#define NVRM_KAPI_OP_UNMAP_MEMORY_DMA	0x2Fu	/* NVOS47 */
#define NVRM_KAPI_OP_BIND_CONTEXT_DMA	0x31u	/* NVOS49 */
#define NVRM_KAPI_OP_CONTROL		0x36u	/* NVOS54 */
#define NVRM_KAPI_OP_DUP_OBJECT		0x37u	/* NVOS55 */
#define NVRM_KAPI_OP_ADD_VBLANK_CALLBACK 0x3Du	/* NVOS61 */
#define NVRM_KAPI_OP_SHARE		0x3Eu	/* NVOS57 */

#define NVRM_KAPI_OPS_SIZE_V525		64u	/* sizeof(nvidia_kernel_rmapi_ops_t), 525-575 */
#define NVRM_KAPI_OPS_SIZE_V580		72u	/* 580-595 */
#define NVRM_KAPI_PARAMS_OFFSET		8u

/* nvidia_kernel_rmapi_ops_t: op@0, params@8 */
struct nvrm_kapi_rmapi_ops {
	u32 op;						/* @0 NVRM_KAPI_OP_* */
	u32 _pad0;
	union {						/* @8 */
		struct nvrm_nvos00 free;
		struct nvrm_nvos02 alloc_memory64;
		struct nvrm_nvos21_v525 alloc21_v525;	/* 525-530 */
		struct nvrm_nvos21_v535 alloc21;	/* 535-570 */
		struct nvrm_nvos64_v535 alloc;		/* 575-595 */
		u64 pvid_heap_control;			/* kernel pointer to NVOS32 */
		struct nvrm_nvos33 map_memory;
		struct nvrm_nvos34 unmap_memory;
		struct nvrm_nvos54 control;
		struct nvrm_nvos55 dup_object;
		struct nvrm_nvos57 share;
		u8 raw[NVRM_KAPI_OPS_SIZE_V580 - NVRM_KAPI_PARAMS_OFFSET];
	} params;
};

/* nvidia_stack_t is opaque; on x86_64 alloc_stack() may return 0 with *sp == NULL. */
struct nvrm_kapi_stack;

/* nv_gpu_info_t (nv-gpu-info.h), 24 B: gpu_id@0, pci_info@4; the rest is not used by qgpu. */
struct nvrm_kapi_gpu_info {
	u32 gpu_id;		/* @0 */
	u32 pci_domain;		/* @4 */
	u8 pci_bus;		/* @8 */
	u8 pci_slot;		/* @9 */
	u8 pci_function;	/* @10 */
	u8 _pad0;		/* @11 */
	u8 needs_numa_setup;	/* @12, 580.94.02-595 */
	u8 is_soc_disp;		/* @13, 595.44.02+ */
	u8 _pad1[2];
	u64 os_device_ptr;	/* @16 struct device * */
};

/* NV_MAX_GPUS: the size of the array enumerate_gpus() fills */
#define NVRM_KAPI_MAX_GPUS	32u

/*
 * nvidia_modeset_rm_ops_t, 72 B. open_gpu/close_gpu are declared with the 595 prototype (the
 * third argument is ignored by 525-590 drivers; an indirect call with a different prototype is
 * only a problem on kernels built with kCFI, which qgpu detects at build time).
 */
struct nvrm_kapi_rm_ops {
	const char *version_string;					/* @0 */
	struct {
		u8 allow_write_combining;				/* @8 NvBool */
		u8 _pad0[7];
	} system_info;
	int (*alloc_stack)(struct nvrm_kapi_stack **sp);		/* @16 */
	void (*free_stack)(struct nvrm_kapi_stack *sp);			/* @24 */
	u32 (*enumerate_gpus)(struct nvrm_kapi_gpu_info *gpu_info);	/* @32 */
	int (*open_gpu)(u32 gpu_id, struct nvrm_kapi_stack *sp, u8 reset_aware);	/* @40 */
	void (*close_gpu)(u32 gpu_id, struct nvrm_kapi_stack *sp, u8 reset_aware);	/* @48 */
	void (*op)(struct nvrm_kapi_stack *sp, void *ops_cmd);		/* @56 */
	int (*set_callbacks)(const void *cb);				/* @64 */
};

/* nvidia_get_rm_ops() (NV_STATUS, u32) and nvsim's twin with the same prototype */
typedef u32 (*nvrm_kapi_get_rm_ops_fn)(struct nvrm_kapi_rm_ops *rm_ops);
#ifdef __KERNEL__
u32 nvsim_get_rm_ops(struct nvrm_kapi_rm_ops *rm_ops);
#endif

NVRM_ASSERT_SIZE(struct nvrm_kapi_rmapi_ops, NVRM_KAPI_OPS_SIZE_V580);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_rmapi_ops, params, NVRM_KAPI_PARAMS_OFFSET);
NVRM_ASSERT_SIZE(struct nvrm_kapi_gpu_info, 24);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_gpu_info, pci_bus, 8);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_gpu_info, os_device_ptr, 16);
NVRM_ASSERT_SIZE(struct nvrm_kapi_rm_ops, 72);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_rm_ops, alloc_stack, 16);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_rm_ops, op, 56);
NVRM_ASSERT_OFFSET(struct nvrm_kapi_rm_ops, set_callbacks, 64);

#endif /* QGPU_NVRM_KAPI_H */
