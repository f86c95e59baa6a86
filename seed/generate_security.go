package seed

import (
	"fmt"
	"time"
)

// uuid returns a random version-4 style UUID.
func uuid(r *rng) string {
	a, b := r.next(), r.next()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(a>>32), uint16(a>>16), uint16(a)&0xfff, uint16(b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}

var scannerNames = [][2]string{{"semgrep", "Semgrep"}, {"gemnasium", "Gemnasium"}, {"trivy", "Trivy"}, {"gitleaks", "Gitleaks"}, {"zaproxy", "OWASP ZAP"}}

// security adds, for every project with vulnerabilities, its scanners (SCANS), identifiers,
// security scans run by pipeline jobs (IN_PIPELINE, RAN_BY), the findings they report
// (HAS_FINDING, DETECTED_BY, HAS_IDENTIFIER, DETECTED_IN), and vulnerability occurrences
// (OCCURRENCE_OF, DETECTED_BY, HAS_IDENTIFIER); about half the vulnerabilities point at a
// finding (Vulnerability.finding_id).
func (g *gen) security(w *world) {
	r := stream(g.opts.Seed, "Orbit/Security")
	vt, pt := g.tb("Vulnerability"), g.tb("Pipeline")
	scannerID, identID, scanID, findingID, occID := int64(0), int64(0), int64(0), int64(0), int64(0)
	scanTypes := []string{"sast", "dependency_scanning", "container_scanning", "dast", "secret_detection"}
	for _, p := range w.projects {
		if len(p.vulns) == 0 {
			continue
		}
		var scanners, idents, findings []int64
		for k := range r.between(1, 2) {
			scannerID++
			s := scannerNames[(int(p.id)+k)%len(scannerNames)]
			created := g.ts(r)
			g.node("VulnerabilityScanner", scannerID, p.path).set("name", s[1]).set("external_id", s[0]).
				set("vendor", []string{"GitLab", "Community"}[r.weighted([]float64{90, 10})]).
				set("created_at", created).set("updated_at", created.Add(time.Duration(r.intn(5000))*time.Hour)).set("project_id", p.id)
			g.edge("SCANS", "VulnerabilityScanner", scannerID, "Project", p.id, p.path)
			scanners = append(scanners, scannerID)
		}
		for range r.between(2, 4) {
			identID++
			created := g.ts(r)
			row := g.node("VulnerabilityIdentifier", identID, p.path).set("created_at", created).set("updated_at", created).set("project_id", p.id)
			if r.chance(0.6) {
				cve := fmt.Sprintf("CVE-%d-%d", 2019+r.intn(7), 1000+r.intn(50000))
				row.set("external_type", "cve").set("external_id", cve).set("name", cve).set("url", "https://nvd.nist.gov/vuln/detail/"+cve)
			} else {
				cwe := fmt.Sprint(20 + r.intn(900))
				row.set("external_type", "cwe").set("external_id", cwe).set("name", "CWE-"+cwe).set("url", "https://cwe.mitre.org/data/definitions/"+cwe+".html")
			}
			g.edge("IN_PROJECT", "VulnerabilityIdentifier", identID, "Project", p.id, p.path)
			idents = append(idents, identID)
		}
		if len(p.pipelines) > 0 {
			n := r.between(1, 3)
			for k := range n {
				pl := p.pipelines[r.intn(len(p.pipelines))]
				plID := pl[0].(int64)
				jobs := p.jobs[plID]
				if len(jobs) == 0 {
					continue
				}
				scanID++
				created := later(r, pl[pt.col("created_at")], 1)
				status := []string{"succeeded", "job_failed", "report_error", "purged", "created", "preparing", "preparation_failed"}[r.weighted([]float64{80, 8, 3, 4, 2, 2, 1})]
				build := jobs[len(jobs)-1][0].(int64)
				g.node("SecurityScan", scanID, p.path).set("scan_type", scanTypes[k%len(scanTypes)]).set("status", status).
					set("latest", true).set("created_at", created).set("updated_at", later(r, created, 1)).
					set("pipeline_id", plID).set("build_id", build).set("project_id", p.id)
				g.edge("IN_PIPELINE", "SecurityScan", scanID, "Pipeline", plID, p.path)
				g.edge("RAN_BY", "SecurityScan", scanID, "Job", build, p.path)
				g.edge("IN_PROJECT", "SecurityScan", scanID, "Project", p.id, p.path)
				if status != "succeeded" {
					continue
				}
				for range r.between(1, 2) {
					findingID++
					scanner := scanners[r.intn(len(scanners))]
					v := p.vulns[r.intn(len(p.vulns))]
					g.node("Finding", findingID, p.path).set("uuid", uuid(r)).set("name", vt.str(v, "title")).
						set("description", "Reported by the "+scanTypes[k%len(scanTypes)]+" analyzer.").
						set("solution", "Upgrade or sanitise the input.").set("severity", vt.str(v, "severity")).
						set("deduplicated", r.chance(0.2)).set("scan_id", scanID).set("scanner_id", scanner).set("project_id", p.id)
					g.edge("HAS_FINDING", "SecurityScan", scanID, "Finding", findingID, p.path)
					g.edge("DETECTED_BY", "Finding", findingID, "VulnerabilityScanner", scanner, p.path)
					g.edge("HAS_IDENTIFIER", "Finding", findingID, "VulnerabilityIdentifier", idents[r.intn(len(idents))], p.path)
					g.edge("DETECTED_IN", "Finding", findingID, "Pipeline", plID, p.path)
					g.edge("IN_PROJECT", "Finding", findingID, "Project", p.id, p.path)
					findings = append(findings, findingID)
				}
			}
		}
		for _, v := range p.vulns {
			id := v[0].(int64)
			if len(findings) > 0 && r.chance(0.5) {
				f := findings[r.intn(len(findings))]
				vt.put(v, "finding_id", f)
				g.edge("HAS_FINDING", "Vulnerability", id, "Finding", f, p.path)
			}
			if !r.chance(0.6) {
				continue
			}
			occID++
			scanner, ident := scanners[r.intn(len(scanners))], idents[r.intn(len(idents))]
			created := v[vt.col("created_at")]
			row := g.node("VulnerabilityOccurrence", occID, p.path).set("uuid", uuid(r)).set("name", vt.str(v, "title")).
				set("description", v[vt.col("description")]).set("severity", vt.str(v, "severity")).
				set("report_type", vt.str(v, "report_type")).set("location_fingerprint", sha(r)).
				set("location", fmt.Sprintf(`{"file":"%s/%s.go","start_line":%d}`, words[r.intn(len(words))], words[r.intn(len(words))], 1+r.intn(400))).
				set("detection_method", []string{"gitlab_security_report", "external_security_report", "bug_bounty", "code_review", "security_audit"}[r.weighted([]float64{85, 8, 2, 3, 2})]).
				set("created_at", created).set("updated_at", later(r, created, 24*30)).set("detected_at", created).
				set("vulnerability_id", id).set("scanner_id", scanner).set("primary_identifier_id", ident).set("project_id", p.id)
			if r.chance(0.4) {
				row.set("solution", "Upgrade the affected component.")
			}
			if r.chance(0.3) {
				row.set("cve", fmt.Sprintf("CVE-%d-%d", 2019+r.intn(7), 1000+r.intn(50000)))
			}
			g.edge("OCCURRENCE_OF", "VulnerabilityOccurrence", occID, "Vulnerability", id, p.path)
			g.edge("DETECTED_BY", "VulnerabilityOccurrence", occID, "VulnerabilityScanner", scanner, p.path)
			g.edge("HAS_IDENTIFIER", "VulnerabilityOccurrence", occID, "VulnerabilityIdentifier", ident, p.path)
			g.edge("IN_PROJECT", "VulnerabilityOccurrence", occID, "Project", p.id, p.path)
		}
	}
}
