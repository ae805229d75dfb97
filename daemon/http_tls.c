/* http_tls.c — load and check the HTTPS certificate and key with GnuTLS. */
#define _GNU_SOURCE
#include "http_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A certificate chain or key is a few kB; anything bigger is not one. */
#define TLS_FILE_MAX (1024 * 1024)

/* Read a whole regular file into a NUL-terminated malloc'd string. */
static int read_pem(const char *what, const char *path, char **ret, char *err, size_t n)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return snprintf(err, n, "%s: cannot open %s: %s", what, path, strerror(errno)), -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > TLS_FILE_MAX) {
		close(fd);
		return snprintf(err, n, "%s: %s is not a regular file under 1 MiB", what, path), -EINVAL;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (buf && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	int saved = errno;
	close(fd);
	if (!buf)
		return snprintf(err, n, "%s: out of memory", what), -ENOMEM;
	if (got != (size_t)st.st_size) {
		free(buf);
		return snprintf(err, n, "%s: cannot read %s: %s", what, path, strerror(saved ? saved : EIO)),
		       -EIO;
	}
	buf[got] = '\0';
	*ret = buf;
	return 0;
}

static int check_cert(const char *path, const char *pem, char *err, size_t n)
{
	gnutls_x509_crt_t crt;
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};

	if (gnutls_x509_crt_init(&crt) < 0)
		return snprintf(err, n, "tls-cert: out of memory"), -ENOMEM;
	int r = gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM);
	gnutls_x509_crt_deinit(crt);
	if (r < 0)
		return snprintf(err, n, "tls-cert: %s is not a PEM certificate (%s)", path,
		                gnutls_strerror(r)),
		       -EINVAL;
	return 0;
}

static int check_key(const char *path, const char *pem, char *err, size_t n)
{
	gnutls_x509_privkey_t key;
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};

	if (gnutls_x509_privkey_init(&key) < 0)
		return snprintf(err, n, "tls-key: out of memory"), -ENOMEM;
	int r = gnutls_x509_privkey_import2(key, &d, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_x509_privkey_deinit(key);
	if (r < 0)
		return snprintf(err, n, "tls-key: %s is not an unencrypted PEM private key (%s)", path,
		                gnutls_strerror(r)),
		       -EINVAL;
	return 0;
}

/* The pair as libmicrohttpd will load it: this is where a key that belongs to another
 * certificate shows. */
static int check_pair(const struct pw_tls_material *m, const char *cert_path, const char *key_path, char *err,
                      size_t n)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t c = {(unsigned char *)m->cert, (unsigned)strlen(m->cert)};
	gnutls_datum_t k = {(unsigned char *)m->key, (unsigned)strlen(m->key)};

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return snprintf(err, n, "tls: out of memory"), -ENOMEM;
	int r = gnutls_certificate_set_x509_key_mem(cred, &c, &k, GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
		return snprintf(err, n, "tls-key: %s does not belong to the certificate in %s", key_path,
		                cert_path),
		       -EINVAL;
	if (r < 0)
		return snprintf(err, n, "tls: %s and %s cannot be used together (%s)", cert_path, key_path,
		                gnutls_strerror(r)),
		       -EINVAL;
	return 0;
}

static int check_priorities(const char *priorities, char *err, size_t n)
{
	gnutls_priority_t prio;
	const char *where = NULL;
	int r = gnutls_priority_init(&prio, priorities, &where);

	if (r < 0)
		return snprintf(err, n, "tls-priorities: invalid GnuTLS priority string '%s' at '%s' (%s)",
		                priorities, where ? where : "", gnutls_strerror(r)),
		       -EINVAL;
	gnutls_priority_deinit(prio);
	return 0;
}

int pw_tls_load(const char *cert_path, const char *key_path, const char *priorities,
                struct pw_tls_material *ret, char *err, size_t n)
{
	struct pw_tls_material m = {0};
	int r;

	if ((r = check_priorities(priorities, err, n)) < 0)
		return r;
	if ((r = read_pem("tls-cert", cert_path, &m.cert, err, n)) < 0 ||
	    (r = read_pem("tls-key", key_path, &m.key, err, n)) < 0 ||
	    (r = check_cert(cert_path, m.cert, err, n)) < 0 || (r = check_key(key_path, m.key, err, n)) < 0 ||
	    (r = check_pair(&m, cert_path, key_path, err, n)) < 0) {
		pw_tls_material_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

void pw_tls_material_done(struct pw_tls_material *m)
{
	if (m->key)
		explicit_bzero(m->key, strlen(m->key));
	free(m->key);
	free(m->cert);
	m->key = m->cert = NULL;
}
