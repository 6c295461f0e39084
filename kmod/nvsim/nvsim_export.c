// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: exporting RM objects into a nvidiactl file and importing them from it, the NV0000
 * OS_UNIX controls behind cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR).
 *
 * As in the real driver (os.c cliresCtrlCmdOsUnix*_IMPL and rmobjexportimport.c, 525-595):
 *   - an export fd is a nvidiactl file of the caller (nv_get_file_private(fd, ctl)), set up once
 *     with room for maxObjects objects (CREATE_EXPORT_OBJECT_FD, the first EXPORT_OBJECTS_TO_FD,
 *     or EXPORT_OBJECT_TO_FD with room for one); setting it up twice is NV_ERR_STATE_IN_USE;
 *   - exporting duplicates the object into RM's internal export client: the memory lives on
 *     while the file holds it, whatever the exporting client frees meanwhile, until the file
 *     is released or the slot is exported over;
 *   - importing duplicates it from there into the caller's client, under hParent, with the
 *     handle the caller names (0 generates one), and tells the batched caller what it is
 *     (VIDMEM or SYSMEM); a failed batch frees what it imported before the failure.
 * Only copyable classes can be exported (the duplication's resCanCopy, NV_ERR_INVALID_ARGUMENT).
 * An export fd cannot be mmap()ed (nvsim_mmap()). GET_EXPORT_OBJECT_INFO is not simulated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>

#include "nvsim_internal.h"

/*
 * What a file's slot holds: the exported object's class and resource (a reference), and its
 * GPU. nvsim has no export client; the slot is the export handle.
 */
struct nvsim_export_slot {
	u32 hclass;
	struct nvsim_res *res;
	struct nvsim_gpu *gpu;
};

/* NV_MAX_DEVICES, RM's device instance of an export fd not tied to a device */
#define NVSIM_EXPORT_NO_DEVICE	32u

static void nvsim_export_slot_clear(struct nvsim_export_slot *slot)
{
	if (slot->res)
		nvsim_res_put(slot->res);
	memset(slot, 0, sizeof(*slot));
}

/* The device instance of @gpu (its index, as RM_ALLOC of a device names it). */
static u32 nvsim_export_device(const struct nvsim_gpu *gpu)
{
	return gpu ? (u32)(gpu - nvsim_gpus) : NVSIM_EXPORT_NO_DEVICE;
}

/* _initializeExportObjectFd(): room for @max objects, tied to @hdevice's instance (0: none). */
static u32 nvsim_export_fd_init(struct nvsim_client *client, struct nvsim_file *nf, u32 hdevice,
				u16 max)
{
	struct nvsim_object *dev = NULL;

	if (nf->exports)
		return NVRM_ERR_STATE_IN_USE;
	if (hdevice) {
		dev = nvsim_object_lookup(client, hdevice);
		if (!dev)
			return NVRM_ERR_OBJECT_NOT_FOUND;
		if (dev->hclass != NVRM_CLASS_NV01_DEVICE_0)
			return NVRM_ERR_INVALID_PARAMETER;
	}
	nf->exports = kcalloc(max, sizeof(*nf->exports), GFP_KERNEL);
	if (!nf->exports)
		return NVRM_ERR_NO_MEMORY;
	nf->max_exports = max;
	nf->export_device = nvsim_export_device(dev ? dev->gpu : NULL);
	return NVRM_OK;
}

static void nvsim_export_fd_uninit(struct nvsim_file *nf)
{
	kfree(nf->exports);
	nf->exports = NULL;
	nf->max_exports = 0;
}

/* RmExportObject(): take @handle of @client into @slot (the caller clears it on failure). */
static u32 nvsim_export_one(struct nvsim_client *client, u32 handle, struct nvsim_export_slot *slot,
			    u32 *device)
{
	struct nvsim_object *obj = nvsim_object_lookup(client, handle);

	if (!obj)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (!nvsim_class_can_copy(obj->hclass))
		return NVRM_ERR_INVALID_ARGUMENT;
	slot->hclass = obj->hclass;
	slot->gpu = obj->gpu;
	if (obj->res) {
		kref_get(&obj->res->ref);
		slot->res = obj->res;
	}
	*device = nvsim_export_device(obj->gpu);
	return NVRM_OK;
}

/* RmImportObject(): a new handle of @client under @hparent for what @slot holds. */
static u32 nvsim_import_one(struct nvsim_client *client, u32 hparent, u32 *handle,
			    const struct nvsim_export_slot *slot)
{
	struct nvsim_object *parent = nvsim_object_lookup(client, hparent);
	u32 status;

	if (!parent)
		return NVRM_ERR_OBJECT_NOT_FOUND;
	if (*handle && nvsim_object_lookup(client, *handle))
		return NVRM_ERR_INSERT_DUPLICATE_NAME;
	status = nvsim_check_parent(slot->hclass, parent);
	if (status)
		return status;
	if (slot->gpu && parent->gpu != slot->gpu)
		return NVRM_ERR_INVALID_OBJECT_PARENT;
	return nvsim_object_new_ref(client, parent, slot->hclass, slot->res, handle);
}

/* The export fd of a control: a nvidiactl file of the caller, with a reference. */
static struct file *nvsim_export_file(s32 fd)
{
	return fd < 0 ? NULL : nvsim_get_nvidia_file(fd, true);
}

static u32 nvsim_ctrl_export_object_to_fd(const struct nvsim_caller *caller,
					  struct nvsim_object *obj, void *buf)
{
	struct nvrm_os_unix_export_object_to_fd *p = buf;
	struct nvsim_export_slot slot = {};
	struct nvsim_file *nf;
	struct file *f;
	u32 status, device;

	if (p->flags & NVRM_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD ||
	    p->object.type != NVRM_OS_UNIX_EXPORT_OBJECT_TYPE_RM || p->fd == -1)
		return NVRM_ERR_INVALID_PARAMETER;
	status = nvsim_export_one(obj->client, p->object.hobject, &slot, &device);
	if (status)
		return status;
	f = nvsim_export_file(p->fd);
	if (!f) {
		nvsim_export_slot_clear(&slot);
		return NVRM_ERR_INVALID_PARAMETER;
	}
	nf = f->private_data;
	status = nvsim_export_fd_init(obj->client, nf, p->object.hdevice, 1);
	if (status)
		nvsim_export_slot_clear(&slot);
	else
		nf->exports[0] = slot;
	fput(f);
	return status;
}

static u32 nvsim_ctrl_create_export_object_fd(const struct nvsim_caller *caller,
					      struct nvsim_object *obj, void *buf)
{
	struct nvrm_os_unix_create_export_object_fd *p = buf;
	struct file *f;
	u32 status;

	if (!p->max_objects)
		return NVRM_ERR_INVALID_PARAMETER;
	f = nvsim_export_file(p->fd);
	if (!f)
		return NVRM_ERR_INVALID_PARAMETER;
	status = nvsim_export_fd_init(obj->client, f->private_data, p->hdevice, p->max_objects);
	fput(f);
	return status;
}

static u32 nvsim_ctrl_export_objects_to_fd(const struct nvsim_caller *caller,
					   struct nvsim_object *obj, void *buf)
{
	struct nvrm_os_unix_export_objects_to_fd *p = buf;
	struct nvsim_export_slot *slots = NULL;
	bool set_up = false;
	struct nvsim_file *nf;
	u32 status, device, i;
	struct file *f;

	f = nvsim_export_file(p->fd);
	if (!f)
		return NVRM_ERR_INVALID_PARAMETER;
	nf = f->private_data;
	if (!nf->exports) {
		status = p->max_objects ? nvsim_export_fd_init(obj->client, nf, p->hdevice,
							       p->max_objects) :
					  NVRM_ERR_INVALID_PARAMETER;
		if (status)
			goto out_put;
		set_up = true;
	}
	status = NVRM_ERR_INVALID_PARAMETER;
	if (p->num_objects > NVRM_OS_UNIX_EXPORT_OBJECTS_TO_FD_MAX_OBJECTS)
		goto out;
	status = NVRM_ERR_OUT_OF_RANGE;
	if ((u32)p->num_objects + p->index > nf->max_exports)
		goto out;
	status = NVRM_ERR_NO_MEMORY;
	slots = kcalloc(max_t(u32, p->num_objects, 1), sizeof(*slots), GFP_KERNEL);
	if (!slots)
		goto out;
	status = NVRM_OK;
	for (i = 0; i < p->num_objects && !status; i++) {
		if (!p->objects[i])
			continue;
		status = nvsim_export_one(obj->client, p->objects[i], &slots[i], &device);
		if (!status && device != nf->export_device)
			status = NVRM_ERR_INVALID_PARAMETER;
	}
	if (status) {
		for (i = 0; i < p->num_objects; i++)
			nvsim_export_slot_clear(&slots[i]);
		goto out;
	}
	/* An object exported over an occupied slot replaces it. */
	for (i = 0; i < p->num_objects; i++) {
		nvsim_export_slot_clear(&nf->exports[p->index + i]);
		nf->exports[p->index + i] = slots[i];
	}
out:
	kfree(slots);
	if (status && set_up)
		nvsim_export_fd_uninit(nf);
out_put:
	fput(f);
	return status;
}

static u32 nvsim_ctrl_import_object_from_fd(const struct nvsim_caller *caller,
					    struct nvsim_object *obj, void *buf)
{
	struct nvrm_os_unix_import_object_from_fd *p = buf;
	struct nvsim_file *nf;
	struct file *f;
	u32 status;

	if (p->object.type != NVRM_OS_UNIX_EXPORT_OBJECT_TYPE_RM || p->fd == -1)
		return NVRM_ERR_INVALID_PARAMETER;
	f = nvsim_export_file(p->fd);
	if (!f)
		return NVRM_ERR_INVALID_PARAMETER;
	nf = f->private_data;
	if (!nf->exports || !nf->max_exports || !nf->exports[0].hclass)
		status = NVRM_ERR_INVALID_PARAMETER;
	else
		status = nvsim_import_one(obj->client, p->object.hparent, &p->object.hobject,
					  &nf->exports[0]);
	fput(f);
	return status;
}

static u8 nvsim_import_type(const struct nvsim_export_slot *slot)
{
	return slot->hclass == NVRM_CLASS_NV01_MEMORY_LOCAL_USER ?
	       NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_VIDMEM : NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_SYSMEM;
}

static u32 nvsim_ctrl_import_objects_from_fd(const struct nvsim_caller *caller,
					     struct nvsim_object *obj, void *buf)
{
	struct nvrm_os_unix_import_objects_from_fd *p = buf;
	const struct nvsim_export_slot *slot;
	u32 status = NVRM_OK, i = 0;
	struct nvsim_file *nf;
	struct file *f;

	f = nvsim_export_file(p->fd);
	if (!f)
		return NVRM_ERR_INVALID_PARAMETER;
	nf = f->private_data;
	if (!nf->exports || p->num_objects > NVRM_OS_UNIX_IMPORT_OBJECTS_FROM_FD_MAX_OBJECTS) {
		status = NVRM_ERR_INVALID_PARAMETER;
		goto out_put;
	}
	if ((u32)p->num_objects + p->index > nf->max_exports) {
		status = NVRM_ERR_OUT_OF_RANGE;
		goto out_put;
	}
	for (i = 0; i < p->num_objects; i++) {
		slot = &nf->exports[p->index + i];
		if (!slot->hclass) {
			p->object_types[i] = NVRM_OS_UNIX_IMPORT_OBJECT_TYPE_NONE;
			continue;
		}
		/* GET_ADDR_SPACE_TYPE of the export: memory only */
		if (!nvsim_is_memory_class(slot->hclass)) {
			status = NVRM_ERR_INVALID_ARGUMENT;
			break;
		}
		p->object_types[i] = nvsim_import_type(slot);
		status = nvsim_import_one(obj->client, p->hparent, &p->objects[i], slot);
		if (status)
			break;
	}
	/* As RM: what this call imported before failing goes again (no params are copied back). */
	while (status && i > 0) {
		i--;
		if (p->objects[i])
			nvsim_rm_free_locked(caller, obj->client->root.handle, p->objects[i]);
	}
out_put:
	fput(f);
	return status;
}

const struct nvsim_control nvsim_export_controls[] = {
	{ NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_os_unix_export_object_to_fd), nvsim_ctrl_export_object_to_fd },
	{ NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_os_unix_import_object_from_fd), nvsim_ctrl_import_object_from_fd },
	{ NVRM_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_os_unix_create_export_object_fd), nvsim_ctrl_create_export_object_fd },
	{ NVRM_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_os_unix_export_objects_to_fd), nvsim_ctrl_export_objects_to_fd },
	{ NVRM_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, NVRM_CLASS_NV01_ROOT_CLIENT,
	  sizeof(struct nvrm_os_unix_import_objects_from_fd), nvsim_ctrl_import_objects_from_fd },
};

const unsigned int nvsim_export_num_controls = ARRAY_SIZE(nvsim_export_controls);

/**
 * nvsim_export_file_release() - a nvidiactl file goes: what it held exported goes with it
 * @nf: the file
 *
 * Context: process context (release); takes nvsim_rm_lock.
 */
void nvsim_export_file_release(struct nvsim_file *nf)
{
	u32 i;

	if (!nf->exports)
		return;
	mutex_lock(&nvsim_rm_lock);
	for (i = 0; i < nf->max_exports; i++)
		nvsim_export_slot_clear(&nf->exports[i]);
	nvsim_export_fd_uninit(nf);
	mutex_unlock(&nvsim_rm_lock);
}
