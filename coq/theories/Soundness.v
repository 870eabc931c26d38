(** * Soundness of the checkers: a [true] answer proves the claim of Semantics.v *)
From Coq Require Import QArith List Bool Lia Setoid Morphisms.
From Proofcheck Require Import Semantics Fast Vectors FFProof SAProof Checker.
Import ListNotations.
Open Scope Q_scope.

(** ** Well-formedness *)
Lemma num_okb_ok x : num_okb x = true -> num_ok x.
Proof.
  destruct x as [[dd|hh]|[dd|hh] [dd'|hh']]; simpl; auto; try discriminate.
  intros H E. apply negb_true_iff in H. apply Qeq_bool_iff in E. congruence.
Qed.

Lemma forallb_Forall {T} (f : T -> bool) (P : T -> Prop) l :
  (forall x, f x = true -> P x) -> forallb f l = true -> Forall P l.
Proof.
  intros H. induction l; simpl; constructor; apply andb_true_iff in H0; intuition.
Qed.

Lemma vec_okb_ok d x : vec_okb d x = true -> vec_ok d x.
Proof.
  unfold vec_okb, vec_ok. rewrite andb_true_iff, Nat.eqb_eq. intros [H1 H2]. split; auto.
  eapply forallb_Forall; [apply num_okb_ok | exact H2].
Qed.

Lemma factored_okb_ok d M : factored_okb d M = true -> factored_ok d M.
Proof.
  unfold factored_okb, factored_ok. rewrite !andb_true_iff, Nat.eqb_eq.
  intros [[[H1 H2] H3] H4]. repeat split; auto using num_okb_ok;
    eapply forallb_Forall; eauto using vec_okb_ok.
Qed.

Lemma ff_okb_ok d f : ff_okb d f = true -> ff_ok d f.
Proof.
  unfold ff_okb, ff_ok. rewrite !andb_true_iff, !Nat.eqb_eq.
  intros [[[[[H1 H2] H3] H4] H5] H6]. repeat split; auto using num_okb_ok;
    eapply forallb_Forall; eauto using vec_okb_ok, num_okb_ok.
Qed.

Lemma sa_okb_ok d a : sa_okb d a = true -> sa_ok d a.
Proof.
  unfold sa_okb, sa_ok. rewrite !andb_true_iff. intros [[H1 H2] H3]. repeat split.
  - now apply num_okb_ok.
  - unfold nonempty in H2. destruct (heads a); discriminate.
  - eapply forallb_Forall; [|exact H3]. intros h Hh. apply andb_true_iff in Hh as [A1 A2].
    split; now apply factored_okb_ok.
Qed.

Lemma net_okb_ok d net : net_okb d net = true -> net_ok d net.
Proof.
  apply forallb_Forall. intros bl H. apply andb_true_iff in H as [H1 H2].
  split; [now apply ff_okb_ok | now apply sa_okb_ok].
Qed.

Lemma seq_okb_ok d X : seq_okb d X = true -> seq_ok d X.
Proof.
  unfold seq_okb, seq_ok. rewrite andb_true_iff. intros [H1 H2]. split.
  - unfold nonempty in H1. destruct X; discriminate.
  - eapply forallb_Forall; [apply vec_okb_ok | exact H2].
Qed.

Lemma data_okb_ok d data : data_okb d data = true -> data_ok d data.
Proof.
  apply forallb_Forall. intros XY H. apply andb_true_iff in H as [H1 H2].
  split; now apply seq_okb_ok.
Qed.

(** ** Shapes after reading *)
Lemma read_vec_length x : length (read_vec x) = length x.
Proof. apply map_length. Qed.

Definition qblock_ok (d : nat) (bl : block Q) : Prop :=
  Forall (fun w => length w = d) (W (ff_of bl)) /\
  Forall (fun h => Forall (fun v => length v = d) (left (V h))) (heads (sa_of bl)).

Lemma Forall_read d (l : list (list num)) :
  Forall (vec_ok d) l -> Forall (fun v => length v = d) (map read_vec l).
Proof.
  induction 1; simpl; constructor; auto. rewrite read_vec_length. apply H.
Qed.

Lemma read_block_ok d bl : ff_ok d (ff_of bl) /\ sa_ok d (sa_of bl) -> qblock_ok d (read_block bl).
Proof.
  intros [Hf Ha]. split.
  - simpl. apply Forall_read, Hf.
  - destruct Ha as (_ & _ & Hh). simpl. induction Hh as [|h hs [_ HV] _ IH]; simpl; constructor; auto.
    simpl. apply Forall_read, HV.
Qed.

Lemma read_seq_length d X : Forall (vec_ok d) X -> Forall (fun x => length x = d) (read_seq X).
Proof. apply Forall_read. Qed.

(** ** The network *)
Definition inv (d : nat) (T : list tok) (Z : list vec) : Prop :=
  Forall2 (fun t z => veqp (tx t) z) T Z /\ Forall tc_ok T /\ Forall (fun z => length z = d) Z.

Lemma Forall2_tx_map (T : list tok) Z :
  Forall2 (fun t z => veqp (tx t) z) T Z <-> Forall2 veqp (map tx T) Z.
Proof.
  split.
  - induction 1; simpl; constructor; auto.
  - revert Z; induction T; intros Z H; inversion H; subst; constructor; auto.
Qed.

Lemma Forall2_veqp_trans X Y Z : Forall2 veqp X Y -> Forall2 veqp Y Z -> Forall2 veqp X Z.
Proof.
  intros H1. revert Z. induction H1; intros Z H2; inversion H2; subst; constructor; auto.
  now rewrite H.
Qed.

Lemma ff_layer_ok d f T Z :
  Forall (fun w => length w = d) (W f) -> inv d T Z ->
  inv d (map (ff_fast (prep_ff f)) T) (map (ff_apply f) Z).
Proof.
  intros HW (H1 & H2 & H3). split; [|split].
  { clear H3. induction H1 as [|t z T' Z' Ht HT IH]; simpl; constructor.
    - destruct (ff_fast_ok f t (Forall_inv H2)) as [E _]. rewrite E. now apply ff_apply_proper.
    - apply IH. exact (Forall_inv_tail H2). }
  { clear H1 H3. induction H2; simpl; constructor; auto. now apply ff_fast_ok. }
  { clear H1 H2. induction H3; simpl; constructor; auto. now apply ff_apply_length. }
Qed.

Lemma sa_layer_ok d a T Z :
  Forall (fun h => Forall (fun v => length v = d) (left (V h))) (heads a) -> inv d T Z ->
  inv d (sa_fast (prep_sa a) T) (sa_apply a Z).
Proof.
  intros HV (H1 & H2 & H3). destruct (sa_fast_ok a T H2) as [S1 S2]. split; [|split]; auto.
  - apply Forall2_tx_map. apply Forall2_tx_map in S1. eapply Forall2_veqp_trans; [exact S1|].
    apply sa_apply_proper. now apply Forall2_tx_map.
  - now apply sa_apply_length.
Qed.

Lemma run_inv d net T Z :
  Forall (qblock_ok d) net -> inv d T Z ->
  inv d (fold_left (fun T pb => sa_fast (snd pb) (map (ff_fast (fst pb)) T)) (prepare net) T)
        (transformer net Z).
Proof.
  unfold transformer. revert T Z. induction net as [|bl net IH]; intros T Z Hn H; simpl; auto.
  inversion Hn as [|? ? [HW HV] Hn']; subst. apply IH; auto.
  unfold block_apply. apply sa_layer_ok; auto. apply ff_layer_ok; auto.
Qed.

Lemma start_inv d X :
  Forall (fun x => length x = d) X -> inv d (map (fun x => Tok (map qnorm x) None) X) X.
Proof.
  intros HX. split; [|split]; auto.
  - clear HX. induction X as [|x X IH]; simpl; constructor; auto. cbn [tx].
    clear. induction x as [|a x IH]; [reflexivity|]. simpl. apply veqp_cons. split; auto.
    apply qnorm_eq.
  - apply Forall_forall. intros t Hin. apply in_map_iff in Hin as [x [<- _]]. intros r p E.
    discriminate.
Qed.

Lemma run_ok d net X :
  Forall (qblock_ok d) net -> Forall (fun x => length x = d) X ->
  Forall2 veqp (run (prepare net) X) (transformer net X) /\
  Forall (fun z => length z = d) (transformer net X).
Proof.
  intros Hn HX. destruct (run_inv d net _ X Hn (start_inv d X HX)) as (H1 & _ & H3).
  split; auto. now apply Forall2_tx_map.
Qed.

(** ** Set equality *)
Lemma Forall2_in_l {S T} (R : S -> T -> Prop) l l' x :
  Forall2 R l l' -> In x l -> exists y, In y l' /\ R x y.
Proof.
  induction 1; simpl; [contradiction|]. intros [<-|H1]; [eauto|].
  destruct (IHForall2 H1) as [z [Hz Rz]]. eauto.
Qed.

Lemma Forall2_in_r {S T} (R : S -> T -> Prop) l l' y :
  Forall2 R l l' -> In y l' -> exists x, In x l /\ R x y.
Proof.
  induction 1; simpl; [contradiction|]. intros [<-|H1]; [eauto|].
  destruct (IHForall2 H1) as [z [Hz Rz]]. eauto.
Qed.

Lemma set_equalb_ok d fast out Y :
  set_equalb fast Y = true -> Forall2 veqp fast out ->
  Forall (fun z => length z = d) out -> Forall (fun y => length y = d) Y -> set_equal out Y.
Proof.
  unfold set_equalb. rewrite andb_true_iff, !forallb_forall. intros [H1 H2] HF Lo Ly.
  rewrite Forall_forall in Lo, Ly. split.
  - intros x Hx. destruct (Forall2_in_r _ _ _ _ HF Hx) as [x' [Hx' E]].
    apply H1, existsb_exists in Hx' as [y [Hy V]]. apply veqb_veq in V. exists y. split; auto.
    apply veq_of_veqp.
    + rewrite <- E. now apply veq_veqp.
    + now rewrite (Lo x Hx), (Ly y Hy).
  - intros y Hy. assert (Hy' := H2 y Hy). apply existsb_exists in Hy'. destruct Hy' as [x' [Hx' V]].
    apply veqb_veq in V. destruct (Forall2_in_l _ _ _ _ HF Hx') as [x [Hx E]].
    exists x. split; auto. apply veq_of_veqp.
    + rewrite <- E. now apply veq_veqp.
    + now rewrite (Lo x Hx), (Ly y Hy).
Qed.

(** ** Theorem 1.6 *)
Theorem chunk_sound : forall d net pn data,
  net_okb d net = true -> prepare (read_net net) = pn -> check_data d pn data = true ->
  theorem_1_6 d net data.
Proof.
  intros d net pn data Hn <- H. unfold check_data in H. rewrite andb_true_iff in H.
  destruct H as [Hd Hc]. apply net_okb_ok in Hn. apply data_okb_ok in Hd.
  split; [exact Hn|]. split; [exact Hd|].
  assert (Hq : Forall (qblock_ok d) (read_net net)).
  { unfold read_net. clear Hd Hc. induction Hn; simpl; constructor; auto. now apply read_block_ok. }
  intros X Y Hin. unfold check_pairs in Hc. rewrite forallb_forall in Hc.
  specialize (Hc _ Hin). simpl in Hc.
  unfold read_data in Hin. apply in_map_iff in Hin as [[X0 Y0] [E Hin]]. simpl in E.
  injection E as <- <-. unfold data_ok in Hd. rewrite Forall_forall in Hd.
  destruct (Hd _ Hin) as [[_ HX] [_ HY]].
  simpl in HX, HY. apply read_seq_length in HX, HY.
  destruct (run_ok d (read_net net) _ Hq HX) as [R L].
  eapply set_equalb_ok; eauto.
Qed.

Theorem check_theorem_sound : forall d net data,
  check_theorem d net data = true -> theorem_1_6 d net data.
Proof.
  intros d net data H. unfold check_theorem in H. rewrite !andb_true_iff in H.
  destruct H as [[Hn Hd] Hc]. apply (chunk_sound d net (prepare (read_net net))); auto.
  unfold check_data. now rewrite Hd, Hc.
Qed.

(** ** Lemma instances *)
Lemma layer_fast_ok d l X :
  layer_ok d l -> Forall (fun x => length x = d) X ->
  Forall2 veqp (layer_fast (read_layer l) X) (layer_apply (read_layer l) X) /\
  Forall (fun z => length z = d) (layer_apply (read_layer l) X).
Proof.
  intros Hl HX. assert (I := start_inv d X HX).
  destruct l as [f|a]; simpl in *.
  - assert (HW : Forall (fun w => length w = d) (W (read_ff f))) by (apply Forall_read, Hl).
    destruct (ff_layer_ok d _ _ _ HW I) as (H1 & _ & H3). split; auto. now apply Forall2_tx_map.
  - assert (HV : Forall (fun h => Forall (fun v => length v = d) (left (V h))) (heads (read_sa a))).
    { destruct Hl as (_ & _ & Hh). simpl. induction Hh as [|h hs [_ HV] _ IH]; simpl;
        constructor; auto. apply Forall_read, HV. }
    destruct (sa_layer_ok d _ _ _ HV I) as (H1 & _ & H3). split; auto.
    now apply Forall2_tx_map.
Qed.

Lemma matchesb_ok d fast out E :
  matchesb fast E = true -> Forall2 veqp fast out -> Forall (fun z => length z = d) out ->
  Forall (fun e => match e with Some y => length y = d | None => True end) E ->
  matches out E.
Proof.
  intros H HF Lo LE. revert E H Lo LE. induction HF as [|x x' fast out Hx HF IH];
    intros [|e E] H Lo LE; simpl in H; try discriminate.
  - split; auto. intros [|i] y Hi; discriminate.
  - apply andb_true_iff in H as [H1 H2].
    destruct (IH E H2 (Forall_inv_tail Lo) (Forall_inv_tail LE)) as [L M].
    split; [simpl; now f_equal|].
    intros [|i] y Hi; simpl in Hi.
    + injection Hi as ->. exists x'. split; auto. apply veqb_veq in H1. apply veq_of_veqp.
      * rewrite <- Hx. now apply veq_veqp.
      * rewrite (Forall_inv Lo). apply Forall_inv in LE. simpl in LE. now rewrite LE.
    + now apply M.
Qed.

Lemma all2_nth {S T} (f : S -> T -> bool) l m :
  all2 f l m = true ->
  length l = length m /\ forall j x y, nth_error l j = Some x -> nth_error m j = Some y -> f x y = true.
Proof.
  revert m; induction l as [|x l IH]; intros [|y m] H; simpl in H; try discriminate.
  - split; auto. intros [|j]; discriminate.
  - apply andb_true_iff in H as [H1 H2]. destruct (IH m H2) as [L F]. split; [simpl; auto|].
    intros [|k] x0 y0 Hx Hy; simpl in *; [congruence|]. eauto.
Qed.

Theorem check_instance_sound : forall d l inputs expected,
  check_instance d l inputs expected = true -> instance d l inputs expected.
Proof.
  intros d l inputs expected H. unfold check_instance in H. rewrite !andb_true_iff in H.
  destruct H as [[[Hl Hi] He] Hc].
  assert (Hl' : layer_ok d l) by (destruct l; simpl in *; [now apply ff_okb_ok | now apply sa_okb_ok]).
  assert (Hi' : Forall (seq_ok d) inputs) by (eapply forallb_Forall; [apply seq_okb_ok | exact Hi]).
  assert (He' : Forall (Forall (fun e => match e with Some y => vec_ok d y | None => True end)) expected).
  { eapply forallb_Forall; [|exact He]. intros E HE. eapply forallb_Forall; [|exact HE].
    intros [y|] Hy; auto. now apply vec_okb_ok. }
  split; [exact Hl'|]. split; [exact Hi'|]. split; [exact He'|].
  apply all2_nth in Hc as [L F]. split.
  - unfold read_expected. now rewrite !map_length.
  - intros j X E HX HE. unfold read_expected in HE. rewrite nth_error_map in HX, HE.
    destruct (nth_error inputs j) as [X0|] eqn:E1; [|discriminate].
    destruct (nth_error expected j) as [E0|] eqn:E2; [|discriminate].
    simpl in HX, HE. injection HX as <-. injection HE as <-.
    specialize (F j X0 E0 E1 E2).
    assert (HX0 : Forall (fun x => length x = d) (read_seq X0)).
    { apply nth_error_In in E1. rewrite Forall_forall in Hi'. apply read_seq_length, Hi', E1. }
    assert (HE0 : Forall (fun e => match e with Some y => length y = d | None => True end)
                         (map (option_map read_vec) E0)).
    { apply nth_error_In in E2. rewrite Forall_forall in He'. specialize (He' E0 E2).
      clear - He'. induction He' as [|[y|] E0 Hy _ IH]; simpl; constructor; auto.
      simpl. rewrite read_vec_length. apply Hy. }
    destruct (layer_fast_ok d l (read_seq X0) Hl' HX0) as [R Lo].
    eapply matchesb_ok; eauto.
Qed.
