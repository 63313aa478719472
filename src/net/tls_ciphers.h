/* TLS records sealed by OpenSSL's built-in AES-GCM and ChaCha20-Poly1305, not through 3.0's provider calls. */
#ifndef HX_TLS_CIPHERS_H
#define HX_TLS_CIPHERS_H

/* Registers, once, an ENGINE that hands OpenSSL its own built-in AEAD
 * ciphers; a context made after it seals and opens records with them.
 * Call it before SSL_CTX_new. 0, or -1 (the provider's ciphers stay). */
int tls_builtin_ciphers(void);

#endif
