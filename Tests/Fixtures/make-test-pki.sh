#!/usr/bin/env bash
# Makes a throwaway PKI with the openssl CLI (independent of timbre's own code):
# root CA -> intermediate CA -> leaf for IP 127.0.0.1 only, plus an unrelated "other" root.
# Writes DIR/{root,intermediate,leaf,other-root}.pem, leaf.key, chain.pem (leaf+intermediate)
# and DIR/pins.env with the SPKI pin of each, as computed by openssl.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ec root.key; ec intermediate.key; ec leaf.key; ec other-root.key
openssl req -x509 -new -key root.key -out root.pem -days 30 -subj "/CN=timbre test root" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -x509 -new -key other-root.key -out other-root.pem -days 30 -subj "/CN=unrelated root" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new -key intermediate.key -out intermediate.csr -subj "/CN=timbre test intermediate" 2>/dev/null
printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n' > int.ext
openssl x509 -req -in intermediate.csr -CA root.pem -CAkey root.key -CAcreateserial -out intermediate.pem -days 30 -extfile int.ext 2>/dev/null
openssl req -new -key leaf.key -out leaf.csr -subj "/CN=127.0.0.1" 2>/dev/null
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA intermediate.pem -CAkey intermediate.key -CAcreateserial -out leaf.pem -days 30 -extfile leaf.ext 2>/dev/null
cat leaf.pem intermediate.pem > chain.pem
pin() { echo "sha256/$(openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)"; }
{
  echo "LEAF=$(pin leaf.pem)"
  echo "INTERMEDIATE=$(pin intermediate.pem)"
  echo "ROOT=$(pin root.pem)"
  echo "OTHER=$(pin other-root.pem)"
} > pins.env
