// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: rm_ioctl(), the RM's entry for the escapes nv.c does not answer itself.
 *
 * The real driver's nvidia_ioctl() copies an escape's parameters into a kernel buffer and hands
 * that buffer to rm_ioctl(sp, nv, nvfp, cmd, data, size) (reference 1.2, step 9; declared in
 * open-gpu-kernel-modules kernel-open/common/inc/nv.h, defined in
 * src/nvidia/arch/nvalloc/unix/src/osapi.c, 525-595). nvsim keeps that boundary, with the same
 * name and argument order, in a file of its own so that the compiler can neither inline nor clone
 * it into its caller: what instruments the real function (a tracer, qgpu's sealed forwarding,
 * DOC: sealed forwarding in kmod/qgpu_seal.c) reaches nvsim's the same way. Where the real one
 * takes nvidia's stack, state and file private, nvsim passes NULL, NULL and its file.
 */
#include <linux/fs.h>

#include "nvsim_internal.h"

/**
 * rm_ioctl() - one RM escape on the kernel copy of its parameters
 * @sp: the real driver's stack (unused; NULL)
 * @nv: the real driver's device state (unused; NULL)
 * @nvfp: the nvsim file the ioctl was issued on
 * @cmd: the escape number (_IOC_NR of the ioctl, the inner one of an XFER)
 * @data: the kernel copy of the parameters, copied back to the caller afterwards
 * @size: their size
 *
 * Context: process context; takes nvsim_rm_lock where state changes.
 * Return: 0, or -EINVAL for a call the driver refuses (unknown escape, wrong size or device). An
 * embedded pointer that cannot be read or written is RM's status (NV_ERR_INVALID_ADDRESS) in the
 * parameters, as in the real driver, and they are still copied back.
 */
noinline int rm_ioctl(void *sp, void *nv, struct file *nvfp, u32 cmd, void *data, u32 size)
{
	switch (cmd) {
	case NVRM_ESC_REGISTER_FD:
		return nvsim_register_fd(nvfp, data, size);
	case NVRM_ESC_RM_ALLOC:
		return nvsim_rm_alloc(nvfp, data, size);
	case NVRM_ESC_RM_FREE:
		return nvsim_rm_free(nvfp, data, size);
	case NVRM_ESC_RM_CONTROL:
		return nvsim_rm_control(nvfp, data, size);
	case NVRM_ESC_RM_MAP_MEMORY:
		return nvsim_map_memory(nvfp, data, size);
	case NVRM_ESC_RM_UNMAP_MEMORY:
		return nvsim_unmap_memory(nvfp, data, size);
	case NVRM_ESC_RM_MAP_MEMORY_DMA:
		return nvsim_map_memory_dma(nvfp, data, size);
	case NVRM_ESC_RM_UNMAP_MEMORY_DMA:
		return nvsim_unmap_memory_dma(nvfp, data, size);
	case NVRM_ESC_RM_UPDATE_DEVICE_MAPPING_INFO:
		return nvsim_update_device_mapping_info(nvfp, data, size);
	case NVRM_ESC_RM_DUP_OBJECT:
		return nvsim_rm_dup(nvfp, data, size);
	case NVRM_ESC_RM_SHARE:
		return nvsim_rm_share(nvfp, data, size);
	case NVRM_ESC_RM_ACCESS_REGISTRY:
		return nvsim_rm_access_registry(nvfp, data, size);
	case NVRM_ESC_RM_VID_HEAP_CONTROL:
		return nvsim_rm_vid_heap_control(nvfp, data, size);
	case NVRM_ESC_RM_ALLOC_MEMORY:
		return nvsim_rm_alloc_memory(nvfp, data, size);
	case NVRM_ESC_ALLOC_OS_EVENT:
		return nvsim_alloc_os_event(nvfp, data, size);
	case NVRM_ESC_FREE_OS_EVENT:
		return nvsim_free_os_event(nvfp, data, size);
	case NVRM_ESC_RM_GET_EVENT_DATA:
		return nvsim_get_event_data(nvfp, data, size);
	default:
		return -EINVAL;
	}
}
