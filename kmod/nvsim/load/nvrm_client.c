// SPDX-License-Identifier: GPL-2.0
/*
 * nvrm_client: a user-space RM client (see nvrm_client.h).
 *
 * The call sequence and every parameter follow the real driver's ABI (nvidia-rm-abi.md sections
 * 1-5) so that what works against nvsim also works against NVIDIA's driver: ctl-only escapes go
 * to /dev/nvidiactl, REGISTER_FD to the GPU file, sizes come from the version's profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nvrm_client.h"

/* The largest FB_GET_INFO_V2 params of any profile (580+: 0x80 entries, 1028 B). */
#define FB_INFO_V2_MAX_SIZE	NVRM_FB_GET_INFO_V2_SIZE(NVRM_FB_INFO_MAX_LIST_SIZE_V580)
/* The largest NVOS64 of any profile (535+). */
#define NVOS64_MAX_SIZE		sizeof(struct nvrm_nvos64_v535)

/* A macro rather than a varargs function, so that gcc checks every format as snprintf's. */
#define set_err(c, ...) snprintf((c)->errmsg, sizeof((c)->errmsg), __VA_ARGS__)

/* Record "STEP: NAME (0xN)" for an RM refusal; a no-op for NVRM_OK. */
static void set_status_err(struct nvrm_client *c, const char *step, u32 status)
{
	char s[64];

	if (status != NVRM_OK)
		set_err(c, "%s: %s", step, nvrm_client_status_str(status, s, sizeof(s)));
}

static void put_u32(void *buf, u32 off, u32 v)
{
	memcpy((u8 *)buf + off, &v, sizeof(v));
}

static void put_u64(void *buf, u32 off, u64 v)
{
	memcpy((u8 *)buf + off, &v, sizeof(v));
}

static u64 user_ptr(const void *p)
{
	return (u64)(uintptr_t)p;
}

/*
 * Issue one escape as _IOWR('F', nr, size), the only encoding the driver decodes (it reads
 * _IOC_NR and _IOC_SIZE and nothing else). The driver copies the params back even when RM refuses
 * the call, so a 0 return means "look at the status field".
 */
static int nv_ioctl(int fd, u32 nr, void *params, u32 size)
{
	int ret;

	do {
		ret = ioctl(fd, NVRM_IOWR(nr, size), params);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

/**
 * nvrm_client_init() - set up an empty client (no files, no handles)
 * @c: client
 */
void nvrm_client_init(struct nvrm_client *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = -1;
	c->gpu_fd = -1;
}

/**
 * nvrm_client_status_str() - "NAME (0xN)" for an RM status
 * @status: RM status code
 * @buf: destination
 * @len: its size
 *
 * Return: @buf.
 */
const char *nvrm_client_status_str(u32 status, char *buf, size_t len)
{
	snprintf(buf, len, "%s (0x%x)", nvrm_status_name(status), status);
	return buf;
}

/**
 * nvrm_client_strerror() - the last failure, naming the step that failed
 * @c: client
 *
 * Return: e.g. "RM_ALLOC device (0x80): NV_ERR_INSUFFICIENT_PERMISSIONS (0x1b)", or "" if
 * nothing failed.
 */
const char *nvrm_client_strerror(const struct nvrm_client *c)
{
	return c->errmsg;
}

static int open_node(struct nvrm_client *c, const char *dir, const char *name, int *fd)
{
	char path[NVRM_CLIENT_PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		set_err(c, "open %s/%s: %s", dir, name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	/* Blocking open: a GPU file opened O_NONBLOCK would need WAIT_OPEN_COMPLETE (550+). */
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		n = -errno;
		set_err(c, "open %s: %s", path, strerror(-n));
		return n;
	}
	return 0;
}

/**
 * nvrm_client_open_ctl() - open DIR/nvidiactl
 * @c: client without a ctl file
 * @dir: directory of the device nodes, e.g. "/dev" or "/dev/qgpu/NAME"
 *
 * Return: 0, or the negative errno of open(2).
 */
int nvrm_client_open_ctl(struct nvrm_client *c, const char *dir)
{
	return open_node(c, dir, "nvidiactl", &c->ctl_fd);
}

/**
 * nvrm_client_query_version() - learn the driver's version and pick its ABI profile
 * @c: client with an open ctl file
 *
 * CHECK_VERSION_STR with cmd QUERY makes the driver copy its own version string out and succeed
 * whatever we send (RmPerformVersionCheck), so we learn the version before issuing anything whose
 * layout depends on it.
 *
 * Return: 0; the ioctl's negative errno; -EOPNOTSUPP if no profile covers the version.
 */
int nvrm_client_query_version(struct nvrm_client *c)
{
	struct nvrm_rm_api_version v;
	int ret;

	memset(&v, 0, sizeof(v));
	v.cmd = NVRM_RM_API_VERSION_CMD_QUERY;
	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	if (ret) {
		set_err(c, "CHECK_VERSION_STR: %s", strerror(-ret));
		return ret;
	}
	memcpy(c->version, v.version_string, sizeof(c->version));
	c->version[sizeof(c->version) - 1] = '\0';
	c->abi = nvrm_abi_lookup(c->version);
	if (!c->abi) {
		set_err(c, "CHECK_VERSION_STR: driver version \"%s\" is not supported (no ABI profile for it)",
			c->version);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * nvrm_client_alloc() - RM_ALLOC one object (NVOS64 at this version's size)
 * @c: client with a profile; @c->hclient is the hRoot (0 when allocating the client itself)
 * @hparent: parent handle (0 for the client)
 * @hnew: handle to give the object, or 0 to let RM generate one
 * @hclass: class id
 * @params: the class's alloc params, laid out for this version, or NULL
 * @hnew_out: if not NULL, the handle RM wrote back
 * @status: RM's status
 *
 * RM copies nvrm_abi_alloc_params_size() bytes of params by class, whatever paramsSize says; we
 * still fill paramsSize truthfully where the layout has it, as libcuda does.
 *
 * Return: 0 (then see @status), or the ioctl's negative errno.
 */
int nvrm_client_alloc(struct nvrm_client *c, u32 hparent, u32 hnew, u32 hclass,
		      void *params, u32 *hnew_out, u32 *status)
{
	u8 p[NVOS64_MAX_SIZE];
	struct nvrm_alloc out;
	const struct nvrm_abi *abi = c->abi;
	int ret;

	*status = NVRM_ERR_GENERIC;
	if (!abi || abi->nvos64_size > sizeof(p))
		return -EINVAL;

	/* The prefix hRoot..pRightsRequested is the same in every version (nvrm_abi.h). */
	memset(p, 0, sizeof(p));
	put_u32(p, offsetof(struct nvrm_nvos64_v535, hroot), c->hclient);
	put_u32(p, offsetof(struct nvrm_nvos64_v535, hobject_parent), hparent);
	put_u32(p, offsetof(struct nvrm_nvos64_v535, hobject_new), hnew);
	put_u32(p, offsetof(struct nvrm_nvos64_v535, hclass), hclass);
	put_u64(p, offsetof(struct nvrm_nvos64_v535, palloc_parms), user_ptr(params));
	put_u64(p, offsetof(struct nvrm_nvos64_v535, prights_requested), 0);
	if (abi->nvos64_params_size_off)
		put_u32(p, abi->nvos64_params_size_off,
			params ? nvrm_abi_alloc_params_size(abi, hclass) : 0);
	put_u32(p, abi->nvos64_flags_off, NVRM_NVOS64_FLAGS_NONE);

	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_RM_ALLOC, p, abi->nvos64_size);
	if (ret)
		return ret;
	ret = nvrm_alloc_decode(abi, p, abi->nvos64_size, &out);
	if (ret)
		return ret;
	*status = out.status;
	if (hnew_out)
		*hnew_out = out.hnew;
	return 0;
}

/**
 * nvrm_client_alloc_root() - RM_ALLOC of NV01_ROOT_CLIENT
 * @c: client with a profile and no client handle yet
 * @status: RM's status
 *
 * hRoot, hObjectParent and hObjectNew are all 0: RM generates the client handle and writes it
 * back in hObjectNew.
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_alloc_root(struct nvrm_client *c, u32 *status)
{
	const char *step = "RM_ALLOC client (0x41)";
	u32 h = 0;
	int ret;

	ret = nvrm_client_alloc(c, 0, 0, NVRM_CLASS_NV01_ROOT_CLIENT, NULL, &h, status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	set_status_err(c, step, *status);
	if (*status == NVRM_OK) {
		if (!h) {
			/* RM never hands out handle 0; don't go on with it. */
			set_err(c, "%s: driver returned client handle 0", step);
			return -EPROTO;
		}
		c->hclient = h;
	}
	return 0;
}

/**
 * nvrm_client_card_info() - CARD_INFO and pick a GPU
 * @c: client with an open ctl file
 * @minor: the GPU's minor number, or < 0 for the first valid entry
 *
 * Return: 0 with @c->card and @c->gpu_index set; the ioctl's negative errno; -ENODEV if no valid
 * entry matches.
 */
int nvrm_client_card_info(struct nvrm_client *c, int minor)
{
	struct nvrm_card_info cards[NVRM_CLIENT_MAX_CARDS];
	u32 i, index = 0;
	int ret;

	memset(cards, 0, sizeof(cards));
	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_CARD_INFO, cards, sizeof(cards));
	if (ret) {
		set_err(c, "CARD_INFO: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < NVRM_CLIENT_MAX_CARDS; i++) {
		if (!cards[i].valid)
			continue;
		if (minor < 0 || cards[i].minor_number == (u32)minor) {
			c->card = cards[i];
			c->gpu_index = index;
			return 0;
		}
		index++;
	}
	if (minor < 0)
		set_err(c, "CARD_INFO: the driver reports no GPU");
	else
		set_err(c, "CARD_INFO: no GPU with minor number %d (%u GPU(s) present)", minor,
			index);
	return -ENODEV;
}

/**
 * nvrm_client_open_gpu_fd() - a fresh /dev/nvidiaN registered to the client's ctl file
 * @c: client after CARD_INFO
 * @dir: where the nodes are
 * @fd: the new file
 *
 * libcuda opens one for every RM_MAP_MEMORY of GPU memory or registers, as the driver wants.
 *
 * Return: 0 or a negative errno (the message names the step).
 */
int nvrm_client_open_gpu_fd(struct nvrm_client *c, const char *dir, int *fd)
{
	struct nvrm_register_fd r;
	char name[32];
	int ret;

	snprintf(name, sizeof(name), "nvidia%u", c->card.minor_number);
	ret = open_node(c, dir, name, fd);
	if (ret)
		return ret;
	r.ctl_fd = c->ctl_fd;
	ret = nv_ioctl(*fd, NVRM_ESC_REGISTER_FD, &r, sizeof(r));
	if (ret) {
		set_err(c, "REGISTER_FD (%s/%s): %s", dir, name, strerror(-ret));
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/**
 * nvrm_client_map_memory() - RM_MAP_MEMORY of [0, @length) of a memory or usermode object
 * @c: client
 * @hdevice: device or subdevice the object is under
 * @hmemory: the object
 * @length: bytes
 * @flags: NVOS33 flags
 * @fd: the registered GPU file to attach the mapping context to; mmap() it next
 * @status: RM status
 *
 * Return: 0 when the ioctl ran (see @status), or a negative errno.
 */
int nvrm_client_map_memory(struct nvrm_client *c, u32 hdevice, u32 hmemory, u64 length,
			   u32 flags, int fd, u32 *status)
{
	struct nvrm_nvos33_with_fd p;
	char step[64];
	int ret;

	snprintf(step, sizeof(step), "RM_MAP_MEMORY 0x%x", hmemory);
	memset(&p, 0, sizeof(p));
	p.params.hclient = c->hclient;
	p.params.hdevice = hdevice;
	p.params.hmemory = hmemory;
	p.params.length = length;
	p.params.flags = flags;
	p.params.status = NVRM_ERR_GENERIC;
	p.fd = fd;
	*status = NVRM_ERR_GENERIC;
	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_RM_MAP_MEMORY, &p, sizeof(p));
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	*status = p.params.status;
	set_status_err(c, step, *status);
	return 0;
}

/**
 * nvrm_client_open_gpu() - open DIR/nvidia<minor> and REGISTER_FD it with the ctl file
 * @c: client with an open ctl file and a chosen card
 * @dir: directory of the device nodes
 *
 * RM refuses a device object unless the process holds an open file of that GPU
 * (nv_is_gpu_accessible), and libcuda links that file to its ctl file with REGISTER_FD.
 *
 * Return: 0, or a negative errno (REGISTER_FD failures are -EINVAL from the driver).
 */
int nvrm_client_open_gpu(struct nvrm_client *c, const char *dir)
{
	struct nvrm_register_fd r;
	char name[32];
	int ret;

	snprintf(name, sizeof(name), "nvidia%u", c->card.minor_number);
	ret = open_node(c, dir, name, &c->gpu_fd);
	if (ret)
		return ret;
	r.ctl_fd = c->ctl_fd;
	ret = nv_ioctl(c->gpu_fd, NVRM_ESC_REGISTER_FD, &r, sizeof(r));
	if (ret)
		set_err(c, "REGISTER_FD (%s/%s): %s", dir, name, strerror(-ret));
	return ret;
}

/**
 * nvrm_client_device_instance() - learn the chosen GPU's device instance from RM
 * @c: client with a client handle and a chosen card
 * @status: RM's status; NVRM_OK also when the driver lacks the control (see below)
 *
 * NV0080's deviceId is RM's device instance, which RM assigns as GPUs attach; on a real machine
 * with several GPUs it need not follow the CARD_INFO order. libcuda-like clients therefore ask
 * NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 on the client, keyed by CARD_INFO's gpu_id. A driver that
 * answers NV_ERR_NOT_SUPPORTED (nvsim before it simulates the control) gets the CARD_INFO position,
 * which is the device instance whenever GPUs attach in probe order.
 *
 * Return: 0 with @c->device_instance set when @status is NVRM_OK, or a negative errno.
 */
int nvrm_client_device_instance(struct nvrm_client *c, u32 *status)
{
	struct nvrm_nv0000_gpu_get_id_info_v2 p;
	char step[96];
	int ret;

	snprintf(step, sizeof(step), "RM_CONTROL GPU_GET_ID_INFO_V2 (0x%x) gpu_id 0x%x",
		 NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2, c->card.gpu_id);
	memset(&p, 0, sizeof(p));
	p.gpu_id = c->card.gpu_id;
	ret = nvrm_client_control(c, c->hclient, NVRM_CTRL_CMD_NV0000_GPU_GET_ID_INFO_V2, &p,
				  sizeof(p), status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	if (*status == NVRM_ERR_NOT_SUPPORTED) {
		*status = NVRM_OK;
		c->device_instance = c->gpu_index;
		return 0;
	}
	set_status_err(c, step, *status);
	if (*status != NVRM_OK)
		return 0;
	if (p.device_instance == NVRM_NV0000_GPU_INVALID_ID) {
		/* The GPU is not attached: opening its file should have done that. */
		set_err(c, "%s: GPU has no device instance (not attached)", step);
		return -ENODEV;
	}
	c->device_instance = p.device_instance;
	return 0;
}

/**
 * nvrm_client_alloc_device() - RM_ALLOC of NV01_DEVICE_0 under the client
 * @c: client with a client handle and a chosen card
 * @hdevice: the handle to give the device
 * @status: RM's status
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_alloc_device(struct nvrm_client *c, u32 hdevice, u32 *status)
{
	const char *step = "RM_ALLOC device (0x80)";
	struct nvrm_nv0080_alloc_params p;
	int ret;

	/* Everything else 0: no client share, default VA mode, as for a first device. */
	memset(&p, 0, sizeof(p));
	p.device_id = c->device_instance;
	ret = nvrm_client_alloc(c, c->hclient, hdevice, NVRM_CLASS_NV01_DEVICE_0, &p, NULL,
				status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	set_status_err(c, step, *status);
	if (*status == NVRM_OK)
		c->hdevice = hdevice;
	return 0;
}

/**
 * nvrm_client_alloc_subdevice() - RM_ALLOC of NV20_SUBDEVICE_0 (subDeviceId 0) under the device
 * @c: client with a device
 * @hsubdevice: the handle to give the subdevice
 * @status: RM's status
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_alloc_subdevice(struct nvrm_client *c, u32 hsubdevice, u32 *status)
{
	const char *step = "RM_ALLOC subdevice (0x2080)";
	struct nvrm_nv2080_alloc_params p = { .sub_device_id = 0 };
	int ret;

	ret = nvrm_client_alloc(c, c->hdevice, hsubdevice, NVRM_CLASS_NV20_SUBDEVICE_0, &p, NULL,
				status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	set_status_err(c, step, *status);
	if (*status == NVRM_OK)
		c->hsubdevice = hsubdevice;
	return 0;
}

/**
 * nvrm_client_open() - the whole bring-up: ctl, version, client, card, GPU file, device instance,
 *	device, subdevice
 * @c: a client fresh from nvrm_client_init()
 * @dir: directory of the device nodes
 * @minor: the GPU's minor number, or < 0 for the first
 * @status: RM's status of the step that stopped, NVRM_OK if all succeeded
 *
 * Return: 0 (all done when @status is NVRM_OK), or a negative errno; either way
 * nvrm_client_strerror() names the failing step. Call nvrm_client_close() in every case.
 */
int nvrm_client_open(struct nvrm_client *c, const char *dir, int minor, u32 *status)
{
	int ret;

	*status = NVRM_OK;
	ret = nvrm_client_open_ctl(c, dir);
	if (ret)
		return ret;
	ret = nvrm_client_query_version(c);
	if (ret)
		return ret;
	ret = nvrm_client_alloc_root(c, status);
	if (ret || *status != NVRM_OK)
		return ret;
	ret = nvrm_client_card_info(c, minor);
	if (ret)
		return ret;
	ret = nvrm_client_open_gpu(c, dir);
	if (ret)
		return ret;
	ret = nvrm_client_device_instance(c, status);
	if (ret || *status != NVRM_OK)
		return ret;
	ret = nvrm_client_alloc_device(c, NVRM_CLIENT_HDEVICE, status);
	if (ret || *status != NVRM_OK)
		return ret;
	return nvrm_client_alloc_subdevice(c, NVRM_CLIENT_HSUBDEVICE, status);
}

/**
 * nvrm_client_control() - RM_CONTROL on one of the client's objects
 * @c: client with a client handle
 * @hobject: the object the control is addressed to
 * @cmd: control command id
 * @params: the control's params
 * @params_size: their size, which RM requires to equal the control's sizeof for this version
 * @status: RM's status
 *
 * Return: 0 (then see @status), or the ioctl's negative errno.
 */
int nvrm_client_control(struct nvrm_client *c, u32 hobject, u32 cmd, void *params,
			u32 params_size, u32 *status)
{
	struct nvrm_nvos54 p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.hclient = c->hclient;
	p.hobject = hobject;
	p.cmd = cmd;
	p.flags = NVRM_NVOS54_FLAGS_NONE;
	p.params = user_ptr(params);
	p.params_size = params_size;
	p.status = NVRM_ERR_GENERIC;
	*status = NVRM_ERR_GENERIC;
	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_RM_CONTROL, &p, sizeof(p));
	if (ret)
		return ret;
	*status = p.status;
	return 0;
}

/* A control on the subdevice, with the step named in failures. */
static int subdevice_control(struct nvrm_client *c, const char *name, u32 cmd, void *params,
			     u32 params_size, u32 *status)
{
	char step[96];
	int ret;

	snprintf(step, sizeof(step), "RM_CONTROL %s (0x%x)", name, cmd);
	ret = nvrm_client_control(c, c->hsubdevice, cmd, params, params_size, status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	set_status_err(c, step, *status);
	return 0;
}

/* Copy a possibly unterminated ASCII field of @max bytes into a C string. */
static void copy_ascii(char *dst, size_t len, const u8 *src, size_t max)
{
	size_t n = strnlen((const char *)src, max);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/**
 * nvrm_client_gpu_name() - NV2080_CTRL_CMD_GPU_GET_NAME_STRING, ASCII
 * @c: client with a subdevice
 * @buf: destination for the name
 * @len: its size
 * @status: RM's status
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_gpu_name(struct nvrm_client *c, char *buf, size_t len, u32 *status)
{
	struct nvrm_gpu_get_name_string p;
	int ret;

	if (!c->abi || c->abi->gpu_name_string_size > sizeof(p))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.flags = NVRM_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII;
	ret = subdevice_control(c, "GPU_GET_NAME_STRING", NVRM_CTRL_CMD_GPU_GET_NAME_STRING, &p,
				c->abi->gpu_name_string_size, status);
	if (ret || *status != NVRM_OK)
		return ret;
	copy_ascii(buf, len, p.name.ascii, sizeof(p.name.ascii));
	return 0;
}

/**
 * nvrm_client_gpu_uuid() - NV2080_CTRL_CMD_GPU_GET_GID_INFO, ASCII SHA-1 form ("GPU-...")
 * @c: client with a subdevice
 * @buf: destination for the UUID
 * @len: its size
 * @status: RM's status
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_gpu_uuid(struct nvrm_client *c, char *buf, size_t len, u32 *status)
{
	struct nvrm_gpu_get_gid_info p;
	u32 n;
	int ret;

	memset(&p, 0, sizeof(p));
	/* Both field values are 0: FORMAT (1:0) ASCII, TYPE (2:2) SHA1. */
	p.flags = NVRM_GPU_GET_GID_FLAGS_FORMAT_ASCII | NVRM_GPU_GET_GID_FLAGS_TYPE_SHA1;
	ret = subdevice_control(c, "GPU_GET_GID_INFO", NVRM_CTRL_CMD_GPU_GET_GID_INFO, &p,
				sizeof(p), status);
	if (ret || *status != NVRM_OK)
		return ret;
	/* length may or may not count the NUL; never trust it beyond the array. */
	n = p.length < sizeof(p.data) ? p.length : sizeof(p.data);
	copy_ascii(buf, len, p.data, n);
	return 0;
}

/**
 * nvrm_client_fb_info() - NV2080_CTRL_CMD_FB_GET_INFO_V2 for the four size indices
 * @c: client with a subdevice
 * @fb: filled with the values RM returns (KiB)
 * @status: RM's status
 *
 * The params are a fixed-size array whose length changed between releases (0x36..0x80 entries);
 * RM rejects any paramsSize but the version's own, so the profile gives it.
 *
 * Return: 0 (then see @status), -EPROTO if RM's answer lacks an index we asked for, or a negative
 * errno.
 */
int nvrm_client_fb_info(struct nvrm_client *c, struct nvrm_client_fb *fb, u32 *status)
{
	static const u32 indices[] = {
		NVRM_FB_INFO_INDEX_TOTAL_RAM_SIZE,
		NVRM_FB_INFO_INDEX_HEAP_SIZE,
		NVRM_FB_INFO_INDEX_HEAP_FREE,
		NVRM_FB_INFO_INDEX_USABLE_RAM_SIZE,
	};
	u32 *values[] = {
		&fb->total_ram_kib, &fb->heap_size_kib, &fb->heap_free_kib, &fb->usable_ram_kib,
	};
	const u32 list_off = offsetof(struct nvrm_fb_get_info_v2, fb_info_list);
	u8 buf[FB_INFO_V2_MAX_SIZE];
	struct nvrm_fb_info e;
	u32 i, j, count;
	int ret;

	if (!c->abi || c->abi->fb_get_info_v2_size > sizeof(buf))
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	put_u32(buf, offsetof(struct nvrm_fb_get_info_v2, fb_info_list_size),
		NVRM_ARRAY_SIZE(indices));
	for (i = 0; i < NVRM_ARRAY_SIZE(indices); i++) {
		e.index = indices[i];
		e.data = 0;
		memcpy(buf + list_off + i * sizeof(e), &e, sizeof(e));
	}
	ret = subdevice_control(c, "FB_GET_INFO_V2", NVRM_CTRL_CMD_FB_GET_INFO_V2, buf,
				c->abi->fb_get_info_v2_size, status);
	if (ret || *status != NVRM_OK)
		return ret;

	/* RM answers in place; match by index rather than trusting the order. */
	memcpy(&count, buf, sizeof(count));
	if (count > c->abi->fb_info_max_list_size)
		count = c->abi->fb_info_max_list_size;
	for (i = 0; i < NVRM_ARRAY_SIZE(indices); i++) {
		for (j = 0; j < count; j++) {
			memcpy(&e, buf + list_off + j * sizeof(e), sizeof(e));
			if (e.index == indices[i])
				break;
		}
		if (j == count) {
			set_err(c, "RM_CONTROL FB_GET_INFO_V2 (0x%x): no value for index 0x%x",
				NVRM_CTRL_CMD_FB_GET_INFO_V2, indices[i]);
			return -EPROTO;
		}
		*values[i] = e.data;
	}
	return 0;
}

/**
 * nvrm_client_alloc_vidmem() - RM_ALLOC of NV01_MEMORY_LOCAL_USER (video memory) under the device
 * @c: client with a device
 * @hmemory: the handle to give the memory object
 * @size: bytes requested
 * @allocated: if not NULL, the size RM wrote back (rounded up to its page size); 0 on refusal
 * @status: RM's status, NVRM_ERR_NO_MEMORY when the framebuffer (or a qgpu limit) is exhausted
 *
 * This is the allocation path tinygrad's CUDA reimplementation uses (reference section 3):
 * NV_MEMORY_ALLOCATION_PARAMS with LOCATION=VIDMEM and default physicality and page size.
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_alloc_vidmem(struct nvrm_client *c, u32 hmemory, u64 size, u64 *allocated,
			     u32 *status)
{
	return nvrm_client_alloc_vidmem_va(c, hmemory, size, allocated, NULL, status);
}

/**
 * nvrm_client_alloc_vidmem_va() - nvrm_client_alloc_vidmem(), also returning where RM placed it
 * @c: client with a device
 * @hmemory: handle to give the memory
 * @size: bytes
 * @allocated: bytes RM allocated (written back), or NULL
 * @gpu_va: the offset RM wrote back (the GPU address of the memory), or NULL
 * @status: RM status
 *
 * Return: 0 when the ioctl ran (see @status), or a negative errno.
 */
int nvrm_client_alloc_vidmem_va(struct nvrm_client *c, u32 hmemory, u64 size, u64 *allocated,
				u64 *gpu_va, u32 *status)
{
	struct nvrm_memory_allocation_params p;
	char step[64];
	int ret;

	if (allocated)
		*allocated = 0;
	snprintf(step, sizeof(step), "RM_ALLOC vidmem (0x40) 0x%x", hmemory);
	memset(&p, 0, sizeof(p));
	p.owner = c->hclient;
	/* type 0 is NVOS32_TYPE_IMAGE, what CUDA-like clients use for plain buffers. */
	p.type = 0;
	/* The caller picks the handle (hObjectNew), as libcuda does. */
	p.flags = NVRM_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED;
	p.attr = (NVRM_ATTR_LOCATION_VIDMEM << NVRM_ATTR_LOCATION_SHIFT) |
		 (NVRM_ATTR_PHYSICALITY_DEFAULT << NVRM_ATTR_PHYSICALITY_SHIFT) |
		 (NVRM_ATTR_PAGE_SIZE_DEFAULT << NVRM_ATTR_PAGE_SIZE_SHIFT);
	p.size = size;
	ret = nvrm_client_alloc(c, c->hdevice, hmemory, NVRM_CLASS_NV01_MEMORY_LOCAL_USER, &p,
				NULL, status);
	if (ret) {
		set_err(c, "%s: %s", step, strerror(-ret));
		return ret;
	}
	set_status_err(c, step, *status);
	if (*status == NVRM_OK && allocated)
		*allocated = p.size;
	if (*status == NVRM_OK && gpu_va)
		*gpu_va = p.offset;
	return 0;
}

/**
 * nvrm_client_free() - RM_FREE of one object and everything under it
 * @c: client with a client handle
 * @hparent: the object's parent (the client itself when freeing the client)
 * @hobject: the object; the client handle frees the whole client
 * @status: RM's status
 *
 * Return: 0 (then see @status), or the ioctl's negative errno.
 */
int nvrm_client_free(struct nvrm_client *c, u32 hparent, u32 hobject, u32 *status)
{
	struct nvrm_nvos00 p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.hroot = c->hclient;
	p.hobject_parent = hparent;
	p.hobject_old = hobject;
	p.status = NVRM_ERR_GENERIC;
	*status = NVRM_ERR_GENERIC;
	ret = nv_ioctl(c->ctl_fd, NVRM_ESC_RM_FREE, &p, sizeof(p));
	if (ret) {
		set_err(c, "RM_FREE 0x%x: %s", hobject, strerror(-ret));
		return ret;
	}
	*status = p.status;
	if (p.status != NVRM_OK) {
		char step[32];

		snprintf(step, sizeof(step), "RM_FREE 0x%x", hobject);
		set_status_err(c, step, p.status);
	}
	return 0;
}

/**
 * nvrm_client_close() - free the client and close both files
 * @c: client in any state nvrm_client_open() may leave it in
 * @status: RM's status of freeing the client (NVRM_OK when there was none to free)
 *
 * Freeing the client frees its whole subtree. Closing the ctl file would do the same in the
 * driver, but an explicit free tells us whether RM agreed.
 *
 * Return: 0 (then see @status), or the negative errno of the RM_FREE ioctl.
 */
int nvrm_client_close(struct nvrm_client *c, u32 *status)
{
	int ret = 0;

	*status = NVRM_OK;
	if (c->hclient && c->ctl_fd >= 0) {
		/* hRoot == hObjectParent == hObjectOld == hClient: free the client itself. */
		ret = nvrm_client_free(c, c->hclient, c->hclient, status);
		if (!ret && *status == NVRM_OK) {
			c->hclient = 0;
			c->hdevice = 0;
			c->hsubdevice = 0;
		}
	}
	if (c->gpu_fd >= 0)
		close(c->gpu_fd);
	if (c->ctl_fd >= 0)
		close(c->ctl_fd);
	c->gpu_fd = -1;
	c->ctl_fd = -1;
	return ret;
}

/**
 * nvrm_client_dmabuf_capable() - NV2080 GPU_GET_INFO_V2 DMABUF_CAPABILITY
 * @c: client with a subdevice
 * @capable: set to whether the GPU says it can export video memory as dma-bufs
 * @status: RM's status
 *
 * What CUDA's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED comes from, by inference (it is the only
 * place the driver tells user space); an instance whose ``dmabuf`` knob refuses exports
 * answers NO here.
 *
 * Return: 0 (then see @status), or a negative errno.
 */
int nvrm_client_dmabuf_capable(struct nvrm_client *c, bool *capable, u32 *status)
{
	u8 buf[NVRM_GPU_GET_INFO_V2_SIZE(NVRM_GPU_INFO_MAX_LIST_SIZE_V580)];
	u32 size, data;
	int ret;

	if (!c->abi)
		return -EINVAL;
	size = nvrm_gpu_get_info_v2_size(c->abi);
	if (size > sizeof(buf))
		return -EINVAL;
	memset(buf, 0, sizeof(buf));
	put_u32(buf, 0, 1);
	put_u32(buf, 4, NVRM_GPU_INFO_INDEX_DMABUF_CAPABILITY);
	ret = subdevice_control(c, "GPU_GET_INFO_V2", NVRM_CTRL_CMD_GPU_GET_INFO_V2, buf, size,
				status);
	if (ret || *status != NVRM_OK)
		return ret;
	memcpy(&data, buf + 8, sizeof(data));
	*capable = data == NVRM_GPU_INFO_DMABUF_CAPABILITY_YES;
	return 0;
}
