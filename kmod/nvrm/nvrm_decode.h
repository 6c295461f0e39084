/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decoding of NVIDIA RM ioctl parameters, shared by qgpu.ko, nvsim.ko and the user-space
 * unit tests. Nothing here touches user memory: callers pass kernel copies of the parameter bytes
 * together with their size. Version-dependent layouts come from a struct nvrm_abi profile chosen
 * by driver version string.
 */
#ifndef QGPU_NVRM_DECODE_H
#define QGPU_NVRM_DECODE_H

#include "nvrm_types.h"
#include "nvrm_abi.h"

/**
 * struct nvrm_version - a parsed driver version "MAJOR.MINOR[.PATCH]"
 * @major: e.g. 535
 * @minor: e.g. 104
 * @patch: e.g. 5 (0 when the string has only two components, e.g. "535.179")
 */
struct nvrm_version {
	u32 major;
	u32 minor;
	u32 patch;
};

/**
 * struct nvrm_abi - every version-dependent number of the RM ioctl ABI
 * @family: label of the profile, e.g. "535" or "580-590"
 * @major: lowest driver major version the profile covers
 * @nvos21_status_off: offset of NVOS21.status (24 in 525-530, 28 in 535+)
 * @nvos21_has_params_size: NVOS21 has paramsSize@24 (535+)
 * @nvos64_size: sizeof(NVOS64) (40 in 525-530, 48 in 535+)
 * @nvos64_params_size_off: offset of NVOS64.paramsSize, 0 if absent
 * @nvos64_flags_off: offset of NVOS64.flags
 * @nvos64_status_off: offset of NVOS64.status
 * @nvos46_size: sizeof(NVOS46) for RM_MAP_MEMORY_DMA
 * @nvos47_size: sizeof(NVOS47) for RM_UNMAP_MEMORY_DMA
 * @mem_alloc_params_size: sizeof(NV_MEMORY_ALLOCATION_PARAMS)
 * @channel_alloc_params_size: sizeof(NV_CHANNEL_ALLOC_PARAMS)
 * @vaspace_alloc_params_size: sizeof(NV_VASPACE_ALLOCATION_PARAMETERS)
 * @nv00f8_alloc_params_size: sizeof(NV00F8_ALLOCATION_PARAMETERS)
 * @phys_mem_alloc_params_size: sizeof(NV_PHYSICAL_MEMORY_ALLOCATION_PARAMS)
 * @fb_info_max_list_size: NV2080_CTRL_FB_INFO_MAX_LIST_SIZE
 * @fb_get_info_v2_size: sizeof(NV2080_CTRL_FB_GET_INFO_V2_PARAMS)
 * @gpu_info_max_list_size: NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE (GPU_GET_INFO_V2 params are
 *	4 + 8 * this, nvrm_gpu_get_info_v2_size())
 * @gpfifo_schedule_size: sizeof(NVA06C/NVA06F GPFIFO_SCHEDULE params)
 * @gpu_name_string_size: sizeof(NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS)
 * @export_dmabuf_size: sizeof(nv_ioctl_export_to_dma_buf_fd_t)
 * @numa_info_size: sizeof(nv_ioctl_numa_info_t)
 * @uvm_map_external_allocation_size: sizeof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS)
 * @has_wait_open_complete: NV_ESC_WAIT_OPEN_COMPLETE exists (550+)
 * @has_pid_namespaces: GET_PIDS/GET_PID_INFO translate PIDs to the caller's namespace (545+,
 *	per the reference; not measured)
 * @version: the exact driver version string; empty in the static profiles returned by
 *	nvrm_abi_lookup(), filled in by nvrm_abi_init()
 */
struct nvrm_abi {
	const char *family;
	u32 major;
	u32 nvos21_status_off;
	bool nvos21_has_params_size;
	u32 nvos64_size;
	u32 nvos64_params_size_off;
	u32 nvos64_flags_off;
	u32 nvos64_status_off;
	u32 nvos46_size;
	u32 nvos47_size;
	u32 mem_alloc_params_size;
	u32 channel_alloc_params_size;
	u32 vaspace_alloc_params_size;
	u32 nv00f8_alloc_params_size;
	u32 phys_mem_alloc_params_size;
	u32 fb_info_max_list_size;
	u32 fb_get_info_v2_size;
	u32 gpu_info_max_list_size;
	u32 gpfifo_schedule_size;
	u32 gpu_name_string_size;
	u32 export_dmabuf_size;
	u32 numa_info_size;
	u32 uvm_map_external_allocation_size;
	bool has_wait_open_complete;
	bool has_pid_namespaces;
	char version[NVRM_RM_API_VERSION_STRING_LENGTH];
};

/**
 * struct nvrm_alloc - RM_ALLOC parameters, independent of NVOS21/NVOS64 and version
 * @hroot: client handle
 * @hparent: parent object handle
 * @hnew: new object handle (0 in: RM generates one and writes it back)
 * @hclass: class of the new object
 * @params_ptr: user pointer to the class's alloc params
 * @params_size: the caller's paramsSize (0 when the layout has none); RM ignores it and copies
 *	nvrm_abi_alloc_params_size() bytes
 * @flags: NVOS64 flags (NVRM_NVOS64_FLAGS_*), 0 for NVOS21
 * @status: the status field
 * @is_nvos64: the parameters are NVOS64 (told apart from NVOS21 by size only)
 */
struct nvrm_alloc {
	u32 hroot;
	u32 hparent;
	u32 hnew;
	u32 hclass;
	u64 params_ptr;
	u32 params_size;
	u32 flags;
	u32 status;
	bool is_nvos64;
};

/**
 * struct nvrm_mem_alloc - the fields of NV_MEMORY_ALLOCATION_PARAMS a limiter needs
 * @owner: owner tag
 * @flags: NVRM_ALLOC_FLAGS_*
 * @attr: NVRM_ATTR_* bit fields
 * @attr2: attr2 bit fields
 * @size: requested size in; allocated size after RM returns
 * @alignment: requested alignment
 * @hva_space: VA space handle
 * @internal_flags: internalflags (NVRM_INTERNAL_FLAGS_*; kernel callers only)
 * @is_vidmem: LOCATION is VIDMEM and the VIRTUAL flag is clear
 */
struct nvrm_mem_alloc {
	u32 owner;
	u32 flags;
	u32 attr;
	u32 attr2;
	u64 size;
	u64 alignment;
	u32 hva_space;
	u32 internal_flags;
	bool is_vidmem;
};

/**
 * struct nvrm_vidheap - decoded NVOS32 (RM_VID_HEAP_CONTROL)
 * @hroot: client handle
 * @hparent: parent object handle
 * @function: NVRM_NVOS32_FUNCTION_*
 * @status: status field
 * @total: heap total (FUNCTION_INFO output)
 * @free: heap free (FUNCTION_INFO output)
 * @is_alloc: function is ALLOC_SIZE, ALLOC_SIZE_RANGE or ALLOC_TILED_PITCH_HEIGHT
 * @hmemory: AllocSize/Free hMemory (0 for other functions)
 * @alloc_flags: AllocSize flags (alloc functions only)
 * @attr: AllocSize attr (alloc functions only)
 * @attr2: AllocSize attr2 (alloc functions only)
 * @size: AllocSize size (alloc functions only)
 * @is_vidmem: an alloc function that RM turns into NV01_MEMORY_LOCAL_USER
 */
struct nvrm_vidheap {
	u32 hroot;
	u32 hparent;
	u32 function;
	u32 status;
	u64 total;
	u64 free;
	bool is_alloc;
	u32 hmemory;
	u32 alloc_flags;
	u32 attr;
	u32 attr2;
	u64 size;
	bool is_vidmem;
};

/**
 * struct nvrm_xfer_req - an unwrapped NV_ESC_IOCTL_XFER_CMD
 * @nr: inner escape number
 * @size: inner parameter size
 * @ptr: user pointer to the inner parameters (copy-in and copy-back go here)
 */
struct nvrm_xfer_req {
	u32 nr;
	u32 size;
	u64 ptr;
};

/**
 * struct nvrm_control - decoded NVOS54 (RM_CONTROL)
 * @hclient: client handle
 * @hobject: object the control is issued on
 * @cmd: control command id (class << 16 | category << 8 | index)
 * @flags: NVRM_NVOS54_FLAGS_*
 * @params_ptr: user pointer to the control's params
 * @params_size: size of the control's params
 * @status: status field
 * @finn_serialized: params are FINN-serialized, not the plain struct
 */
struct nvrm_control {
	u32 hclient;
	u32 hobject;
	u32 cmd;
	u32 flags;
	u64 params_ptr;
	u32 params_size;
	u32 status;
	bool finn_serialized;
};

/**
 * struct nvrm_dmabuf_export - decoded EXPORT_TO_DMABUF_FD, independent of version
 * @fd: -1 to make a new dma-buf, >= 0 to add objects to that one
 * @hclient: the client the objects' handles belong to
 * @total_objects: objects the dma-buf is to hold in all
 * @num_objects: objects named in this call (handles[0..num_objects))
 * @index: slot of the first of them
 * @total_size: the dma-buf's size
 * @mapping_type: NVRM_DMABUF_MAPPING_TYPE_* (570+; DEFAULT before)
 * @allow_mmap: bAllowMmap (580+; false before)
 * @status_off: offset of the status field in the parameters
 * @handles_off: offset of handles[]
 * @offsets_off: offset of offsets[]
 * @sizes_off: offset of sizes[]
 */
struct nvrm_dmabuf_export {
	s32 fd;
	u32 hclient;
	u32 total_objects;
	u32 num_objects;
	u32 index;
	u64 total_size;
	u32 mapping_type;
	bool allow_mmap;
	u32 status_off;
	u32 handles_off;
	u32 offsets_off;
	u32 sizes_off;
};

/**
 * struct nvrm_dma_map - decoded NVOS46 (RM_MAP_MEMORY_DMA), either layout
 * @hclient: the client
 * @hdevice: the device the mapping is made for (RM's context)
 * @hdma: the virtual memory mapped into
 * @hmemory: the memory mapped
 * @offset: where in @hmemory the mapping starts
 * @length: bytes mapped
 * @flags: NVOS46 flags (NVRM_NVOS46_FLAGS_*)
 * @dma_offset: in, from @hdma's base, or absolute with DMA_OFFSET_FIXED; written back absolute
 * @status: the status field
 * @dma_offset_off: offset of dmaOffset in the parameters
 * @status_off: offset of status
 */
struct nvrm_dma_map {
	u32 hclient;
	u32 hdevice;
	u32 hdma;
	u32 hmemory;
	u64 offset;
	u64 length;
	u32 flags;
	u64 dma_offset;
	u32 status;
	u32 dma_offset_off;
	u32 status_off;
};

/**
 * struct nvrm_dma_unmap - decoded NVOS47 (RM_UNMAP_MEMORY_DMA), either layout
 * @hclient: the client
 * @hdevice: the device the mapping was made for
 * @hdma: the virtual memory
 * @hmemory: the memory (matched in 525-545 only)
 * @flags: NVOS47 flags
 * @dma_offset: the mapping's absolute GPU virtual address, or the start of the span to unmap
 * @size: the span to unmap; 0 (always, in 525-545): the whole mapping at exactly @dma_offset
 * @has_size: the layout has size (550+), and RM matches the mapping by @hdevice, not @hmemory
 * @status: the status field
 * @status_off: offset of status
 */
struct nvrm_dma_unmap {
	u32 hclient;
	u32 hdevice;
	u32 hdma;
	u32 hmemory;
	u32 flags;
	u64 dma_offset;
	u64 size;
	bool has_size;
	u32 status;
	u32 status_off;
};

/* Versions and profiles */
int nvrm_parse_version(const char *s, struct nvrm_version *v);
const struct nvrm_abi *nvrm_abi_lookup(const char *version_string);
int nvrm_abi_init(struct nvrm_abi *abi, const char *version_string);
u32 nvrm_abi_alloc_params_size(const struct nvrm_abi *abi, u32 hclass);
u32 nvrm_abi_escape_size(const struct nvrm_abi *abi, u32 nr);

/* ioctl numbers */
u32 nvrm_ioctl_nr(u32 cmd);
u32 nvrm_ioctl_size(u32 cmd);
u32 nvrm_escape_flags(u32 nr);
const char *nvrm_ioctl_name(u32 nr);

/* RM_ALLOC */
int nvrm_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
		      struct nvrm_alloc *out);
int nvrm_alloc_set_status(const struct nvrm_abi *abi, void *buf, u32 size, u32 status);
int nvrm_alloc_set_hnew(const struct nvrm_abi *abi, void *buf, u32 size, u32 hnew);

/* Memory */
bool nvrm_mem_alloc_is_vidmem(u32 attr, u32 flags);
u64 nvrm_mem_alloc_page_size(u32 attr);
u64 nvrm_mem_alloc_granule(u32 attr, u32 flags, u64 alignment);
u64 nvrm_vidmem_page_size(u64 size, u32 attr);
u64 nvrm_vidmem_granule(u64 size, u32 attr, u32 flags, u64 alignment);
int nvrm_mem_alloc_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			  struct nvrm_mem_alloc *out);
int nvrm_mem_alloc_set_size(const struct nvrm_abi *abi, void *buf, u32 size, u64 alloc_size);
int nvrm_vidheap_decode(const void *buf, u32 size, struct nvrm_vidheap *out);
u32 nvrm_mem_alloc_user_status(u32 attr2, u32 internal_flags);
int nvrm_mem_alloc_as_user(const struct nvrm_abi *abi, void *buf, u32 size);
int nvrm_vidheap_as_user(void *buf, u32 size);

/* XFER and RM_CONTROL */
int nvrm_xfer_decode(const void *buf, u32 outer_size, struct nvrm_xfer_req *out);
int nvrm_control_decode(const void *buf, u32 size, struct nvrm_control *out);

/* EXPORT_TO_DMABUF_FD */
int nvrm_dmabuf_export_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			      struct nvrm_dmabuf_export *out);
u32 nvrm_dmabuf_export_check(const struct nvrm_dmabuf_export *d);
void nvrm_dmabuf_export_object(const void *buf, const struct nvrm_dmabuf_export *d, u32 i,
			       u32 *handle, u64 *offset, u64 *size);

/* GPU_GET_INFO_V2 / GPU_GET_CACHED_INFO */
int nvrm_dma_map_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			struct nvrm_dma_map *out);
int nvrm_dma_unmap_decode(const struct nvrm_abi *abi, const void *buf, u32 size,
			  struct nvrm_dma_unmap *out);
void nvrm_put_u32(void *buf, u32 off, u32 v);
void nvrm_put_u64(void *buf, u32 off, u64 v);

u32 nvrm_gpu_get_info_v2_size(const struct nvrm_abi *abi);
u32 nvrm_gpu_info_check(const struct nvrm_abi *abi, const void *buf, u32 size);
u32 nvrm_gpu_info_hide_dmabuf(const struct nvrm_abi *abi, void *buf, u32 size);

/* GR_SET_CTXSW_PREEMPTION_MODE and GR_CTXSW_PREEMPTION_BIND: what a tenant may not set */
bool nvrm_compute_preemption_refused(u32 cmd, u32 flags, u32 cilp_mode);

/* Names for logs */
const char *nvrm_status_name(u32 status);

#endif /* QGPU_NVRM_DECODE_H */
