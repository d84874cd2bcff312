{{/* Names and labels shared by every template. */}}

{{- define "resize-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's object name prefix: the release name when it already contains the chart name. */}}
{{- define "resize-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "resize-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Standard labels; `component` names the part (operator, redis, rbac, ...). */}}
{{- define "resize-operator.labels" -}}
helm.sh/chart: {{ include "resize-operator.chart" .root }}
app.kubernetes.io/name: {{ include "resize-operator.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: resize-operator
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Selector labels: stable across upgrades (a Deployment's selector is immutable). */}}
{{- define "resize-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "resize-operator.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "resize-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "resize-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "resize-operator.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{- define "resize-operator.leaseName" -}}
{{- default (printf "%s-leader" (include "resize-operator.fullname" .)) .Values.operator.leaderElection.leaseName }}
{{- end }}

{{- define "resize-operator.redisName" -}}
{{- printf "%s-redis" (include "resize-operator.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The Secret holding the Redis password the operator sends ("" when none): the bundled Redis's (the
user's, or the one the chart makes), or the external Redis's when configured.
*/}}
{{- define "resize-operator.redisAuthSecretName" -}}
{{- if eq .Values.redis.mode "bundled" }}
{{- default (printf "%s-redis-auth" (include "resize-operator.fullname" . | trunc 52 | trimSuffix "-")) .Values.redis.bundled.auth.secretName }}
{{- else if eq .Values.redis.mode "external" }}
{{- .Values.redis.external.auth.secretName }}
{{- end }}
{{- end }}

{{/* That Secret's key holding the password. */}}
{{- define "resize-operator.redisAuthKey" -}}
{{- if eq .Values.redis.mode "bundled" }}
{{- .Values.redis.bundled.auth.passwordKey }}
{{- else }}
{{- .Values.redis.external.auth.passwordKey }}
{{- end }}
{{- end }}

{{/* The bundled Redis's governing (headless) Service. */}}
{{- define "resize-operator.redisHeadlessName" -}}
{{- printf "%s-redis-headless" (include "resize-operator.fullname" . | trunc 48 | trimSuffix "-") }}
{{- end }}

{{/* The operator's in-cluster HTTP URL (the Service). */}}
{{- define "resize-operator.serviceUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "resize-operator.fullname" .) .Release.Namespace (int .Values.service.httpPort) }}
{{- end }}

{{/* The restricted Pod Security Standard, for every container of the chart. */}}
{{- define "resize-operator.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}
