{{/* The release's resource name, at most 63 characters. */}}
{{- define "graphwire.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "graphwire.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "graphwire.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The Secret holding the JWKS or the HS256 keys. */}}
{{- define "graphwire.secretName" -}}
{{- .Values.auth.existingSecret | default (include "graphwire.fullname" .) -}}
{{- end -}}

{{/* Fails unless exactly one source of token keys is set. */}}
{{- define "graphwire.checkAuth" -}}
{{- $n := 0 -}}
{{- range (list .Values.auth.jwksUrl .Values.auth.jwks .Values.auth.jwtSecret .Values.auth.existingSecret) -}}
{{- if . }}{{ $n = add1 $n }}{{ end -}}
{{- end -}}
{{- if ne $n 1 -}}
{{- fail "set exactly one of auth.jwksUrl, auth.jwks, auth.jwtSecret and auth.existingSecret" -}}
{{- end -}}
{{- end -}}
