#!/bin/sh
# Certificates for Temporal behind mTLS (docker-compose.yml, and the native topology: the harness's
# test/topology/tls-certs.ts runs this script too): a private CA, the server's certificate (SANs: the
# compose service name `temporal`, localhost, 127.0.0.1; usable as server and client, since the server's
# own system worker presents it to the frontend), and one client certificate per client, each in its own
# folder so it is mounted (or pasted into n8n's credential) alone and can be replaced alone:
#   <out>/ca.pem, <out>/ca.key                the CA (keep ca.key OFF the host once done)
#   <out>/server/{server.pem,server.key,ca.pem}
#   <out>/<client>/{client.pem,client.key,ca.pem}   for CLIENTS (default: worker admin ui n8n cli)
# Usage: sh deploy/tls/make-certs.sh [out dir, default deploy/tls/certs] (openssl required).
# An existing CA in <out> is reused (new client certificates for the same server); DAYS (default 825)
# is their validity. Keys are written 0600; <out> is git-ignored and outside the image (.dockerignore).
set -eu
OUT="${1:-deploy/tls/certs}"
DAYS="${DAYS:-825}"
CLIENTS="${CLIENTS-worker admin ui n8n cli}"
SERVER_SANS="${SERVER_SANS:-DNS:temporal,DNS:localhost,IP:127.0.0.1}"
umask 077
mkdir -p "${OUT}"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1" 2>/dev/null; }

if [ ! -f "${OUT}/ca.key" ]; then
  key "${OUT}/ca.key"
  openssl req -x509 -new -key "${OUT}/ca.key" -out "${OUT}/ca.pem" -days "${DAYS}" -subj "/CN=selling-kit temporal CA" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign'
fi

# leaf <folder> <file stem> <common name> <extensions>
leaf() {
  mkdir -p "${OUT}/$1"
  key "${OUT}/$1/$2.key"
  printf '%s\n' "$4" >"${OUT}/$1/$2.ext"
  openssl req -new -key "${OUT}/$1/$2.key" -out "${OUT}/$1/$2.csr" -subj "/CN=$3"
  openssl x509 -req -in "${OUT}/$1/$2.csr" -CA "${OUT}/ca.pem" -CAkey "${OUT}/ca.key" -CAcreateserial \
    -out "${OUT}/$1/$2.pem" -days "${DAYS}" -extfile "${OUT}/$1/$2.ext" 2>/dev/null
  rm -f "${OUT}/$1/$2.csr" "${OUT}/$1/$2.ext"
  cp "${OUT}/ca.pem" "${OUT}/$1/ca.pem"
}

leaf server server temporal "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=${SERVER_SANS}"
for client in ${CLIENTS}; do
  leaf "${client}" client "selling-kit-${client}" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
done
# Readable by the containers' users (temporal, node, the UI's): each folder is mounted read-only; the
# top folder (ca.key) stays 0700, so other users of the host reach none of them.
chmod 0755 "${OUT}"/*/
chmod 0644 "${OUT}"/*/*.pem "${OUT}"/*/*.key
echo "certificates in ${OUT}: server, ${CLIENTS}"
